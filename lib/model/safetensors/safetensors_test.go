package safetensors

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestHalfConversions(t *testing.T) {
	cases := []struct {
		bits uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x3555, 0.333251953125},
		{0x7bff, 65504}, {0x0001, float32(math.Ldexp(1, -24))}, {0x0400, float32(math.Ldexp(1, -14))},
		{0x03ff, float32(math.Ldexp(1023, -24))}, {0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
	}
	for _, c := range cases {
		if got := HalfToFloat32(c.bits); got != c.want {
			t.Errorf("HalfToFloat32(%#04x) = %g, want %g", c.bits, got, c.want)
		}
		if got := Float32ToHalf(c.want); got != c.bits {
			t.Errorf("Float32ToHalf(%g) = %#04x, want %#04x", c.want, got, c.bits)
		}
	}
	if !math.IsNaN(float64(HalfToFloat32(0x7e00))) || !math.IsNaN(float64(HalfToFloat32(Float32ToHalf(float32(math.NaN()))))) {
		t.Error("NaN not preserved")
	}
	// Round to nearest even: 1 + 2^-11 is halfway between 1 and 1+2^-10.
	if got := Float32ToHalf(1 + float32(math.Ldexp(1, -11))); got != 0x3c00 {
		t.Errorf("tie rounds to %#04x, want even 0x3c00", got)
	}
	if got := Float32ToHalf(1 + 3*float32(math.Ldexp(1, -11))); got != 0x3c02 {
		t.Errorf("tie rounds to %#04x, want even 0x3c02", got)
	}
	if got := Float32ToHalf(1e6); got != 0x7c00 {
		t.Errorf("overflow gives %#04x", got)
	}
	// Every finite half survives half -> float32 -> half.
	for h := 0; h < 1<<16; h++ {
		if h&0x7c00 == 0x7c00 {
			continue
		}
		if got := Float32ToHalf(HalfToFloat32(uint16(h))); got != uint16(h) {
			t.Fatalf("round trip of %#04x gives %#04x", h, got)
		}
	}
}

func TestBF16Rounding(t *testing.T) {
	cases := []struct {
		f    float32
		want uint16
	}{
		{1, 0x3f80}, {-2, 0xc000},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even stays
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, odd rounds up
		{math.Float32frombits(0x3f808001), 0x3f81},
	}
	for _, c := range cases {
		if got := Float32ToBF16(c.f); got != c.want {
			t.Errorf("Float32ToBF16(%#08x) = %#04x, want %#04x", math.Float32bits(c.f), got, c.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	ts := []Named{
		{Name: "a", Shape: []int{2, 3}, Data: []float32{1, -2, 3.5, 0, 1e-3, -7}},
		{Name: "b.bias", Shape: []int{3}, Data: []float32{0.25, 0.5, -0.75}},
		{Name: "s", Shape: []int{}, Data: []float32{42}},
	}
	for _, dt := range []DType{F32, BF16, F16} {
		b, err := Encode(ts, map[string]string{"format": "pt"}, dt)
		if err != nil {
			t.Fatal(err)
		}
		if n := binary.LittleEndian.Uint64(b); n%8 != 0 {
			t.Errorf("%s: header length %d not 8-aligned", dt, n)
		}
		got, meta, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if meta["format"] != "pt" {
			t.Errorf("metadata %v", meta)
		}
		for _, want := range ts {
			g := got[want.Name]
			if g.DType != dt || len(g.Shape) != len(want.Shape) {
				t.Errorf("%s %s: dtype %s shape %v", dt, want.Name, g.DType, g.Shape)
			}
			f, err := g.Float32()
			if err != nil {
				t.Fatal(err)
			}
			for i := range f {
				tol := 0.0
				if dt != F32 {
					tol = math.Abs(float64(want.Data[i])) * 1.0 / 256
				}
				if d := math.Abs(float64(f[i] - want.Data[i])); d > tol {
					t.Errorf("%s %s[%d] = %g, want %g", dt, want.Name, i, f[i], want.Data[i])
				}
			}
		}
	}
	if _, err := Encode([]Named{{Name: "x", Shape: []int{2}, Data: []float32{1}}}, nil, F32); err == nil {
		t.Error("shape/data mismatch accepted")
	}
	if _, err := Encode(append(ts, ts[0]), nil, F32); err == nil {
		t.Error("duplicate name accepted")
	}
}

func TestParseErrors(t *testing.T) {
	good, _ := Encode([]Named{{Name: "x", Shape: []int{2}, Data: []float32{1, 2}}}, nil, F32)
	short := append([]byte(nil), good[:len(good)-4]...)
	bad := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(bad, 1<<40)
	for name, b := range map[string][]byte{"empty": nil, "truncated data": short, "huge header": bad, "not json": append([]byte{3, 0, 0, 0, 0, 0, 0, 0}, "abc"...)} {
		if _, _, err := Parse(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestShards(t *testing.T) {
	dir := t.TempDir()
	var ts []Named
	for i := 0; i < 5; i++ {
		d := make([]float32, 10)
		for j := range d {
			d[j] = float32(i*10 + j)
		}
		ts = append(ts, Named{Name: string(rune('a' + i)), Shape: []int{10}, Data: d})
	}
	if err := WriteShards(dir, ts, nil, F32, 80); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "model-*.safetensors"))
	if len(files) != 3 {
		t.Errorf("%d shards, want 3 (two tensors of 40 bytes per 80-byte shard)", len(files))
	}
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ts {
		f, _ := got[w.Name].Float32()
		for j := range f {
			if f[j] != w.Data[j] {
				t.Fatalf("%s[%d] = %g", w.Name, j, f[j])
			}
		}
	}
	os.Remove(files[1])
	if _, err := ReadDir(dir); err == nil {
		t.Error("missing shard accepted")
	}
}
