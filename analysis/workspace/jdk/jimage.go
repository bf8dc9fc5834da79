package jdk

// The runtime image lib/modules (JDK 9+, the "jimage" format of
// jdk.internal.jimage): a header, a hash table over resource locations,
// the locations, a string table, then the resources. Only its index is
// read into memory (1-2 MB for a full JDK); a class file is read from the
// file when it is first asked for. Every read is bounds-checked: a
// damaged image is an error, never a panic.

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

const (
	jimageMagic           = 0xCAFEDADA
	jimageHeaderSize      = 7 * 4
	jimageCompressedMagic = 0xCAFEFAFA
	jimageCompressedSize  = 29
	// maxClassSize bounds one class file read from an image.
	maxClassSize = 16 << 20
)

// Location attribute kinds (jdk.internal.jimage.ImageLocation).
const (
	attrEnd = iota
	attrModule
	attrParent
	attrBase
	attrExtension
	attrOffset
	attrCompressed
	attrUncompressed
	attrCount
)

// jimage is an open runtime image.
type jimage struct {
	path      string
	f         *os.File
	size      int64
	order     binary.ByteOrder
	indexSize int64
	strs      []byte
}

// jimageResource is where one resource lies.
type jimageResource struct {
	offset, compressed, uncompressed uint64
}

// openJimage reads the image's index and calls add with each class file's
// module, internal name ("java/util/Map$Entry") and location.
func openJimage(path string, add func(module, internal string, r jimageResource)) (*jimage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	img, err := readJimageIndex(path, f, add)
	if err != nil {
		f.Close()
		return nil, err
	}
	return img, nil
}

func readJimageIndex(path string, f *os.File, add func(module, internal string, r jimageResource)) (*jimage, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var hdr [jimageHeaderSize]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return nil, fmt.Errorf("%s: not a JDK runtime image: %w", path, err)
	}
	var order binary.ByteOrder
	switch {
	case binary.LittleEndian.Uint32(hdr[:]) == jimageMagic:
		order = binary.LittleEndian
	case binary.BigEndian.Uint32(hdr[:]) == jimageMagic:
		order = binary.BigEndian
	default:
		return nil, fmt.Errorf("%s: not a JDK runtime image (bad magic number)", path)
	}
	u := func(i int) uint32 { return order.Uint32(hdr[4*i:]) }
	if major := u(1) >> 16; major != 1 {
		return nil, fmt.Errorf("%s: runtime image version %d.%d is not supported (1.x is)", path, major, u(1)&0xffff)
	}
	tableLength, locationsSize, stringsSize := int64(u(4)), int64(u(5)), int64(u(6))
	indexSize := jimageHeaderSize + tableLength*8 + locationsSize + stringsSize
	if indexSize > st.Size() || indexSize > 32<<20 { // a full JDK's is 1-2 MB
		return nil, fmt.Errorf("%s: damaged runtime image: an index of %d bytes in a file of %d", path, indexSize, st.Size())
	}
	index := make([]byte, indexSize-jimageHeaderSize)
	if _, err := f.ReadAt(index, jimageHeaderSize); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	offsets := index[tableLength*4 : tableLength*8] // after the redirect table, which lookups by hash need and a full scan does not
	locs := index[tableLength*8 : tableLength*8+locationsSize]
	img := &jimage{path: path, f: f, size: st.Size(), order: order, indexSize: indexSize, strs: index[tableLength*8+locationsSize:]}
	for i := int64(0); i < tableLength; i++ {
		attrs, err := decodeLocation(locs, int64(order.Uint32(offsets[4*i:])))
		if err != nil {
			return nil, fmt.Errorf("%s: damaged runtime image: location %d: %w", path, i, err)
		}
		ext, err1 := img.str(attrs[attrExtension])
		module, err2 := img.str(attrs[attrModule])
		parent, err3 := img.str(attrs[attrParent])
		base, err4 := img.str(attrs[attrBase])
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, fmt.Errorf("%s: damaged runtime image: location %d: %w", path, i, err)
		}
		// "/packages/…" and "/modules/…" entries have no extension;
		// resources other than classes are of no use here.
		if ext != "class" || module == "" || module == "modules" || module == "packages" {
			continue
		}
		internal := base
		if parent != "" {
			internal = parent + "/" + base
		}
		add(module, internal, jimageResource{offset: attrs[attrOffset], compressed: attrs[attrCompressed], uncompressed: attrs[attrUncompressed]})
	}
	return img, nil
}

// decodeLocation reads the attributes of the location at off: a byte
// whose top five bits are the kind and low three the value's length less
// one, then the value big-endian, until attrEnd.
func decodeLocation(locs []byte, off int64) ([attrCount]uint64, error) {
	var attrs [attrCount]uint64
	if off < 0 || off >= int64(len(locs)) {
		return attrs, fmt.Errorf("offset %d outside the %d bytes of locations", off, len(locs))
	}
	b := locs[off:]
	for len(b) > 0 {
		kind, n := int(b[0]>>3), int(b[0]&7)+1
		if kind == attrEnd {
			return attrs, nil
		}
		if kind >= attrCount {
			return attrs, fmt.Errorf("unknown attribute %d", kind)
		}
		if len(b) < 1+n {
			break
		}
		var v uint64
		for _, c := range b[1 : 1+n] {
			v = v<<8 | uint64(c)
		}
		attrs[kind] = v
		b = b[1+n:]
	}
	return attrs, errors.New("truncated")
}

// str returns the NUL-terminated string at off in the string table.
func (img *jimage) str(off uint64) (string, error) {
	if off >= uint64(len(img.strs)) {
		return "", fmt.Errorf("string offset %d outside the %d-byte table", off, len(img.strs))
	}
	s := img.strs[off:]
	end := bytes.IndexByte(s, 0)
	if end < 0 {
		return "", fmt.Errorf("string at %d has no end", off)
	}
	return string(s[:end]), nil
}

// read returns a resource's bytes, decompressed.
func (img *jimage) read(r jimageResource) ([]byte, error) {
	size := r.uncompressed
	if r.compressed != 0 {
		size = r.compressed
	}
	if size > maxClassSize {
		return nil, fmt.Errorf("%d bytes is too large for a class file", size)
	}
	start := uint64(img.indexSize) + r.offset
	if start < r.offset || start+size > uint64(img.size) {
		return nil, fmt.Errorf("resource at %d+%d lies outside the %d-byte image", start, size, img.size)
	}
	b := make([]byte, size)
	if _, err := img.f.ReadAt(b, int64(start)); err != nil {
		return nil, err
	}
	if r.compressed == 0 {
		return b, nil
	}
	// jlink --compress wraps a resource in one or more compressed
	// headers, outermost first.
	for len(b) >= jimageCompressedSize && img.order.Uint32(b) == jimageCompressedMagic {
		csize, usize := img.order.Uint64(b[4:]), img.order.Uint64(b[12:])
		name, err := img.str(uint64(img.order.Uint32(b[20:])))
		if err != nil {
			return nil, fmt.Errorf("compressed resource: %w", err)
		}
		if usize > maxClassSize || csize > uint64(len(b)-jimageCompressedSize) {
			return nil, fmt.Errorf("compressed resource: sizes %d/%d do not fit", csize, usize)
		}
		if name != "zip" {
			return nil, fmt.Errorf("resource compressed with %q, which perfls cannot read (only \"zip\"): use a JDK with lib/src.zip or lib/ct.sym", name)
		}
		zr, err := zlib.NewReader(bytes.NewReader(b[jimageCompressedSize : jimageCompressedSize+csize]))
		if err != nil {
			return nil, fmt.Errorf("compressed resource: %w", err)
		}
		out, err := io.ReadAll(io.LimitReader(zr, int64(usize)+1))
		zr.Close()
		if err != nil {
			return nil, fmt.Errorf("compressed resource: %w", err)
		}
		if uint64(len(out)) != usize {
			return nil, fmt.Errorf("compressed resource: %d bytes, its header says %d", len(out), usize)
		}
		b = out
	}
	return b, nil
}

func (img *jimage) Close() error { return img.f.Close() }

// jimageName is a resource's name as the JDK spells it, for messages.
func jimageName(module, internal string) string {
	return "/" + module + "/" + strings.TrimPrefix(internal, "/") + ".class"
}
