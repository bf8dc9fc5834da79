package ensemble

import "math/bits"

// bitset marks intervals; support counting is an AND and a popcount.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)           { b[i/64] |= 1 << (uint(i) % 64) }
func (b bitset) has(i int) bool      { return b[i/64]&(1<<(uint(i)%64)) != 0 }
func (b bitset) clone() bitset       { return append(bitset(nil), b...) }
func (b bitset) and(o bitset) bitset { r := b.clone(); r.andWith(o); return r }

func (b bitset) andWith(o bitset) {
	for i := range b {
		b[i] &= o[i]
	}
}

func (b bitset) andNot(o bitset) bitset {
	r := b.clone()
	for i := range r {
		r[i] &^= o[i]
	}
	return r
}

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

func (b bitset) orWith(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}

// indexes lists the set bits in order.
func (b bitset) indexes() []int {
	var r []int
	for i, w := range b {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			r = append(r, i*64+t)
			w &^= 1 << uint(t)
		}
	}
	return r
}
