package tensorboard

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/tensorboard/readback"
)

// TestMaskedCRC: the checksum is CRC-32C (its check value on "123456789"
// is 0xe3069283), rotated right by 15 bits plus 0xa282ead8.
func TestMaskedCRC(t *testing.T) {
	c := uint32(0xe3069283)
	want := (c>>15 | c<<17) + 0xa282ead8
	if got := MaskedCRC([]byte("123456789")); got != want {
		t.Errorf("MaskedCRC(123456789) = %#x, want %#x", got, want)
	}
}

// TestEncodeGolden: the bytes of a small file, worked out by hand from
// the record format and the messages' field numbers.
func TestEncodeGolden(t *testing.T) {
	got, err := Encode(0, []Event{Scalar(1.5, 3, "a", 0.25)})
	if err != nil {
		t.Fatal(err)
	}
	version := append([]byte{0x1a, 13}, "brain.Event:2"...)
	event := []byte{
		0x09, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, // wall_time 1.5 (field 1, fixed64)
		0x10, 3, // step 3 (field 2, varint)
		0x2a, 10, // summary (field 5), 10 bytes
		0x0a, 8, // value (field 1), 8 bytes
		0x0a, 1, 'a', // tag "a"
		0x15, 0, 0, 0x80, 0x3e, // simple_value 0.25 (field 2, fixed32)
	}
	record := func(data []byte) []byte {
		var b []byte
		b = binary.LittleEndian.AppendUint64(b, uint64(len(data)))
		b = binary.LittleEndian.AppendUint32(b, MaskedCRC(b[:8]))
		b = append(b, data...)
		return binary.LittleEndian.AppendUint32(b, MaskedCRC(data))
	}
	want := append(record(version), record(event)...)
	if !bytes.Equal(got, want) {
		t.Errorf("Encode:\n got % x\nwant % x", got, want)
	}
}

// TestRoundTrip: files read back by the independent reader (lib/
// tensorboard/readback) give every event as written: the file_version
// first, scalars as simple values without metadata, texts as rank-0
// string tensors of the text plugin with data class tensor.
func TestRoundTrip(t *testing.T) {
	text := "**iteration 2**: ünïcode | pipes\n\n    > go north\n"
	in := []Event{
		Scalar(1764547200, 0, "train/success", 0),
		Scalar(1764547200, 7, "grpo/loss", -0.0312),
		Scalar(1764547201.25, 1<<40, "eval/valid_seen/no_scaffold/success", 1),
		Text(1764547202, 2, "episode", text),
		Scalar(0, 3, "grpo/kl", math.SmallestNonzeroFloat32),
	}
	b, err := Encode(1764547200, in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := readback.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in)+1 {
		t.Fatalf("%d events read back, want %d", len(out), len(in)+1)
	}
	if out[0].FileVersion != "brain.Event:2" || out[0].WallTime != 1764547200 || len(out[0].Values) != 0 {
		t.Errorf("first event %+v, want file_version brain.Event:2 at 1764547200", out[0])
	}
	for i, e := range in {
		g := out[i+1]
		if g.WallTime != e.WallTime || g.Step != e.Step || len(g.Values) != 1 || g.Values[0].Tag != e.Tag {
			t.Errorf("event %d: got %+v, want %+v", i, g, e)
			continue
		}
		v := g.Values[0]
		if e.IsText {
			if v.HasSimple || !v.HasTensor || v.Plugin != "text" || v.DataClass != 2 || v.Dtype != 7 || v.Rank != 0 || len(v.Strings) != 1 || string(v.Strings[0]) != e.Text {
				t.Errorf("text event %d read back as %+v", i, v)
			}
		} else if !v.HasSimple || v.HasTensor || v.Plugin != "" || v.Simple != e.Scalar {
			t.Errorf("scalar event %d read back as %+v, want %v", i, v, e.Scalar)
		}
	}
	// the same events give the same bytes
	b2, _ := Encode(1764547200, in)
	if !bytes.Equal(b, b2) {
		t.Error("two encodings of the same events differ")
	}
}

// TestEncodeRefuses: a wall time TensorBoard would drop, or an empty
// tag, is an error rather than a file.
func TestEncodeRefuses(t *testing.T) {
	for _, c := range []struct {
		wall float64
		ev   Event
		want string
	}{
		{math.NaN(), Scalar(0, 0, "a", 1), "not finite"},
		{0, Scalar(math.Inf(1), 0, "a", 1), "not finite"},
		{0, Scalar(0, 0, "", 1), "empty tag"},
	} {
		if _, err := Encode(c.wall, []Event{c.ev}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Encode(%v, %+v): %v, want %q", c.wall, c.ev, err, c.want)
		}
	}
}

// TestReadbackCatchesDamage: the reader refuses a flipped byte in a
// record's length or data, a cut file and a file without its
// file_version event, so the round trip above can fail.
func TestReadbackCatchesDamage(t *testing.T) {
	b, err := Encode(5, []Event{Scalar(5, 1, "a", 0.5)})
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		c := append([]byte(nil), b...)
		c[i] ^= 0x01
		return c
	}
	first := 12 + int(binary.LittleEndian.Uint64(b)) + 4
	for name, bad := range map[string][]byte{
		"length":     flip(first),
		"data":       flip(first + 14),
		"data crc":   flip(len(b) - 1),
		"cut":        b[:len(b)-3],
		"no version": AppendRecord(nil, Scalar(5, 1, "a", 0.5).encode()),
	} {
		if _, err := readback.Decode(bad); err == nil {
			t.Errorf("%s: damaged file read back without an error", name)
		}
	}
}

func TestFileName(t *testing.T) {
	for part, want := range map[string]string{
		"traj":                 "events.out.tfevents.0000000003.traj",
		"eval-bare-valid_seen": "events.out.tfevents.0000000003.eval-bare-valid_seen",
		"a/b c":                "events.out.tfevents.0000000003.a_b_c",
	} {
		if got := FileName(3, part); got != want || !strings.Contains(got, "tfevents") {
			t.Errorf("FileName(3, %q) = %q, want %q", part, got, want)
		}
	}
	if !(FileName(9, "x") < FileName(10, "x")) {
		t.Error("file names do not sort by step")
	}
}
