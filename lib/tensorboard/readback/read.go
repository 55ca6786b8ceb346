package readback

import (
	"fmt"
	"math"
	"os"
)

// Event is one event read back.
type Event struct {
	WallTime    float64
	Step        int64
	FileVersion string
	Values      []Value // the summary's values
}

// Value is one summary value.
type Value struct {
	Tag       string
	HasSimple bool
	Simple    float32
	Plugin    string // the metadata's plugin name
	DataClass int64  // the metadata's data class
	Dtype     int64  // the tensor's dtype (0 without a tensor)
	HasTensor bool
	Rank      int      // dimensions of the tensor's shape
	Strings   [][]byte // the tensor's string_val
}

// le reads a little-endian unsigned integer of len(b) bytes.
func le(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// Records splits an event file into its records, checking both checksums
// of each.
func Records(b []byte) ([][]byte, error) {
	var out [][]byte
	for off := 0; off < len(b); {
		if len(b)-off < 12 {
			return nil, fmt.Errorf("offset %d: %d bytes left, a record header takes 12", off, len(b)-off)
		}
		head := b[off : off+8]
		n := le(head)
		if got, want := uint32(le(b[off+8:off+12])), masked(head); got != want {
			return nil, fmt.Errorf("offset %d: length checksum %#x, want %#x", off, got, want)
		}
		if left := uint64(len(b) - off - 12); n > left || left-n < 4 {
			return nil, fmt.Errorf("offset %d: length %d runs past the end", off, n)
		}
		data := b[off+12 : off+12+int(n)]
		end := off + 12 + int(n)
		if got, want := uint32(le(b[end:end+4])), masked(data); got != want {
			return nil, fmt.Errorf("offset %d: data checksum %#x, want %#x", off, got, want)
		}
		out = append(out, data)
		off = end + 4
	}
	return out, nil
}

// field is one decoded protocol-buffer field.
type field struct {
	num  int
	wire int
	u    uint64 // varint, fixed64 or fixed32 value
	b    []byte // length-delimited contents
}

// uvarint decodes a varint at the start of b and returns it and its size.
func uvarint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1, nil
		}
	}
	return 0, 0, fmt.Errorf("bad varint")
}

// fields decodes a message into its fields, in order.
func fields(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		k, n, err := uvarint(b)
		if err != nil {
			return nil, err
		}
		b = b[n:]
		f := field{num: int(k >> 3), wire: int(k & 7)}
		switch f.wire {
		case 0:
			f.u, n, err = uvarint(b)
			if err != nil {
				return nil, err
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return nil, fmt.Errorf("field %d: short fixed64", f.num)
			}
			f.u, b = le(b[:8]), b[8:]
		case 5:
			if len(b) < 4 {
				return nil, fmt.Errorf("field %d: short fixed32", f.num)
			}
			f.u, b = le(b[:4]), b[4:]
		case 2:
			l, n, err := uvarint(b)
			if err != nil {
				return nil, err
			}
			b = b[n:]
			if l > uint64(len(b)) {
				return nil, fmt.Errorf("field %d: length %d past the end", f.num, l)
			}
			f.b, b = b[:l], b[l:]
		default:
			return nil, fmt.Errorf("field %d: wire type %d", f.num, f.wire)
		}
		out = append(out, f)
	}
	return out, nil
}

// DecodeEvent decodes one Event message.
func DecodeEvent(b []byte) (Event, error) {
	fs, err := fields(b)
	if err != nil {
		return Event{}, err
	}
	var e Event
	for _, f := range fs {
		switch {
		case f.num == 1 && f.wire == 1:
			e.WallTime = math.Float64frombits(f.u)
		case f.num == 2 && f.wire == 0:
			e.Step = int64(f.u)
		case f.num == 3 && f.wire == 2:
			e.FileVersion = string(f.b)
		case f.num == 5 && f.wire == 2:
			vs, err := fields(f.b)
			if err != nil {
				return e, err
			}
			for _, v := range vs {
				if v.num != 1 || v.wire != 2 {
					return e, fmt.Errorf("summary field %d", v.num)
				}
				val, err := decodeValue(v.b)
				if err != nil {
					return e, err
				}
				e.Values = append(e.Values, val)
			}
		default:
			return e, fmt.Errorf("event field %d (wire %d) not expected", f.num, f.wire)
		}
	}
	return e, nil
}

func decodeValue(b []byte) (Value, error) {
	fs, err := fields(b)
	if err != nil {
		return Value{}, err
	}
	var v Value
	for _, f := range fs {
		switch {
		case f.num == 1 && f.wire == 2:
			v.Tag = string(f.b)
		case f.num == 2 && f.wire == 5:
			v.HasSimple, v.Simple = true, math.Float32frombits(uint32(f.u))
		case f.num == 8 && f.wire == 2:
			v.HasTensor = true
			ts, err := fields(f.b)
			if err != nil {
				return v, err
			}
			for _, t := range ts {
				switch {
				case t.num == 1 && t.wire == 0:
					v.Dtype = int64(t.u)
				case t.num == 2 && t.wire == 2:
					dims, err := fields(t.b)
					if err != nil {
						return v, err
					}
					for _, d := range dims {
						if d.num == 2 {
							v.Rank++
						}
					}
				case t.num == 8 && t.wire == 2:
					v.Strings = append(v.Strings, t.b)
				default:
					return v, fmt.Errorf("tensor field %d not expected", t.num)
				}
			}
		case f.num == 9 && f.wire == 2:
			ms, err := fields(f.b)
			if err != nil {
				return v, err
			}
			for _, m := range ms {
				switch {
				case m.num == 1 && m.wire == 2:
					ps, err := fields(m.b)
					if err != nil {
						return v, err
					}
					for _, p := range ps {
						if p.num == 1 && p.wire == 2 {
							v.Plugin = string(p.b)
						}
					}
				case m.num == 4 && m.wire == 0:
					v.DataClass = int64(m.u)
				}
			}
		default:
			return v, fmt.Errorf("value field %d (wire %d) not expected", f.num, f.wire)
		}
	}
	return v, nil
}

// Decode reads the events of an event file's bytes: whole records with
// good checksums, the first a file_version event.
func Decode(b []byte) ([]Event, error) {
	recs, err := Records(b)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no records")
	}
	var out []Event
	for i, r := range recs {
		e, err := DecodeEvent(r)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
		if (i == 0) != (e.FileVersion != "") {
			return nil, fmt.Errorf("record %d: file_version %q (the first record and only it has one)", i, e.FileVersion)
		}
		out = append(out, e)
	}
	return out, nil
}

// ReadFile reads an event file (Decode).
func ReadFile(path string) ([]Event, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ev, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ev, nil
}
