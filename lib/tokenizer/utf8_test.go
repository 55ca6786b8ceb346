package tokenizer

import (
	"encoding/hex"
	"testing"
	"unicode/utf8"
)

// TestValidUTF8 checks the replacement against what Python's
// bytes.decode("utf-8", errors="replace") and the WHATWG TextDecoder (node)
// both give for each byte string (run by hand, written down here).
func TestValidUTF8(t *testing.T) {
	cases := []struct{ hex, want string }{
		{"", ""},
		{"414243", "ABC"},
		{"e4bd", "\ufffd"},
		{"e4bda0", "你"},
		{"e4bd41", "\ufffdA"},
		{"ff", "\ufffd"},
		{"fffe", "\ufffd\ufffd"},
		{"80", "\ufffd"},
		{"c0af", "\ufffd\ufffd"},
		{"eda080", "\ufffd\ufffd\ufffd"},
		{"f09f98", "\ufffd"},
		{"f09f9880", "😀"},
		{"41e4bde5a5bd42", "A\ufffd好B"},
		{"e0809f", "\ufffd\ufffd\ufffd"},
		{"f4908080", "\ufffd\ufffd\ufffd\ufffd"},
		{"c3", "\ufffd"},
		{"e4", "\ufffd"},
		{"f0", "\ufffd"},
		{"e4bde4bda0", "\ufffd你"},
	}
	for _, c := range cases {
		b, err := hex.DecodeString(c.hex)
		if err != nil {
			t.Fatal(err)
		}
		got := ValidUTF8(string(b))
		if got != c.want {
			t.Errorf("ValidUTF8(%s) = %+q, want %+q", c.hex, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("ValidUTF8(%s) is not valid UTF-8", c.hex)
		}
	}
}

// TestValidUTF8ByteTokens decodes Qwen3 byte-level tokens that split a
// character (the single-byte tokens of 你's first two bytes): Decode gives
// the raw bytes, ValidUTF8 one U+FFFD for the cut character.
func TestValidUTF8ByteTokens(t *testing.T) {
	tok := loadQwen3(t)
	full := tok.Encode("你")
	if len(full) != 1 {
		t.Fatalf("你 is %d tokens, want 1", len(full))
	}
	first, ok1 := tok.TokenID(byteLevel("\xe4"))
	second, ok2 := tok.TokenID(byteLevel("\xbd"))
	if !ok1 || !ok2 {
		t.Fatal("no single-byte tokens for 0xe4, 0xbd")
	}
	ids := []int32{first, second}
	ids = append(ids, tok.Encode(" ok")...)
	raw := tok.Decode(ids)
	if raw != "\xe4\xbd ok" {
		t.Fatalf("Decode = %+q", raw)
	}
	if got := ValidUTF8(raw); got != "\ufffd ok" {
		t.Errorf("ValidUTF8 = %+q, want %+q", got, "\ufffd ok")
	}
	if got := ValidUTF8(tok.Decode(full)); got != "你" {
		t.Errorf("whole character: %+q", got)
	}
}
