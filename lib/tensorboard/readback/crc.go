package readback

// poly is the Castagnoli polynomial, bit-reversed.
const poly = 0x82f63b78

var crcTable = func() (t [256]uint32) {
	for i := range t {
		c := uint32(i)
		for k := 0; k < 8; k++ {
			if c&1 == 1 {
				c = c>>1 ^ poly
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crc32c is the CRC-32C of b.
func crc32c(b []byte) uint32 {
	c := ^uint32(0)
	for _, x := range b {
		c = crcTable[byte(c)^x] ^ c>>8
	}
	return ^c
}

// masked is the record format's masked checksum of b.
func masked(b []byte) uint32 {
	c := crc32c(b)
	return ((c >> 15) | (c << 17)) + 0xa282ead8
}
