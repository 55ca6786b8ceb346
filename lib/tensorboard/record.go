package tensorboard

import (
	"encoding/binary"
	"hash/crc32"
)

// castagnoli is the CRC-32C table of the record format.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maskDelta is added to the rotated checksum (the record format's mask).
const maskDelta = 0xa282ead8

// MaskedCRC is the record format's checksum of b: the CRC-32C rotated
// right by 15 bits plus a constant, so that a checksum of data holding
// checksums does not degenerate.
func MaskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, castagnoli)
	return (c>>15 | c<<17) + maskDelta
}

// AppendRecord appends one record holding data to dst.
func AppendRecord(dst, data []byte) []byte {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(data)))
	dst = append(dst, n[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, MaskedCRC(n[:]))
	dst = append(dst, data...)
	return binary.LittleEndian.AppendUint32(dst, MaskedCRC(data))
}
