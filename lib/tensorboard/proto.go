package tensorboard

import (
	"encoding/binary"
	"math"
)

// The wire types of the protocol-buffer encoding used here.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// msg builds one protocol-buffer message, field by field, in the order
// the fields are added (ascending field numbers by convention).
type msg []byte

func (m msg) key(field, wire int) msg {
	return binary.AppendUvarint(m, uint64(field)<<3|uint64(wire))
}

// varint adds an integer field (int32, int64 and enums: negative values
// take ten bytes, as the encoding has them).
func (m msg) varint(field int, v int64) msg {
	return binary.AppendUvarint(m.key(field, wireVarint), uint64(v))
}

func (m msg) double(field int, v float64) msg {
	return binary.LittleEndian.AppendUint64(m.key(field, wireFixed64), math.Float64bits(v))
}

func (m msg) float(field int, v float32) msg {
	return binary.LittleEndian.AppendUint32(m.key(field, wireFixed32), math.Float32bits(v))
}

// bytes adds a length-delimited field: a string, bytes, or an embedded
// message.
func (m msg) bytes(field int, b []byte) msg {
	m = binary.AppendUvarint(m.key(field, wireBytes), uint64(len(b)))
	return append(m, b...)
}
