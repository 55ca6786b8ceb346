package tokenizer

// The byte-level alphabet of GPT-2 style BPE: each of the 256 byte values
// is written as one printable rune so that vocabulary entries are text.
// Printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') stand for
// themselves; the other 68 bytes map, in increasing order, to U+0100,
// U+0101, ... (so the space 0x20 is 'Ġ' U+0120 and '\n' is 'Ċ' U+010A).
var (
	byteToRune [256]rune
	runeToByte = map[rune]byte{}
)

func init() {
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = rune(256 + n)
			n++
		}
		runeToByte[byteToRune[b]] = byte(b)
	}
}

// byteLevel writes the bytes of s in the byte-level alphabet.
func byteLevel(s string) string {
	buf := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		buf[i] = byteToRune[s[i]]
	}
	return string(buf)
}

// unByteLevel turns a byte-level token back into its bytes. A token with a
// rune outside the alphabet is returned as its own UTF-8 bytes.
func unByteLevel(dst []byte, tok string) []byte {
	start := len(dst)
	for _, r := range tok {
		b, ok := runeToByte[r]
		if !ok {
			return append(dst[:start], tok...)
		}
		dst = append(dst, b)
	}
	return dst
}
