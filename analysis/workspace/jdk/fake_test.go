package jdk

// Test doubles of a JDK's files, written without a JDK: class files, a
// ct.sym, a runtime image (lib/modules) and JDK homes holding them.

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// fakeMethod is a method of a fake class: a name, a descriptor and access
// flags (public when 0).
type fakeMethod struct {
	name, desc string
	access     uint16
}

// classFile returns a minimal class file (JVMS 4) of class name (internal,
// "java/util/ArrayList") with the given superclass ("" for none), its
// interfaces and methods.
func classFile(name, super string, ifaces []string, methods ...fakeMethod) []byte {
	var pool bytes.Buffer
	count := uint16(1)
	utf := map[string]uint16{}
	utf8 := func(s string) uint16 {
		if i, ok := utf[s]; ok {
			return i
		}
		pool.WriteByte(1)
		binary.Write(&pool, binary.BigEndian, uint16(len(s)))
		pool.WriteString(s)
		utf[s] = count
		count++
		return count - 1
	}
	class := func(s string) uint16 {
		n := utf8(s)
		pool.WriteByte(7)
		binary.Write(&pool, binary.BigEndian, n)
		count++
		return count - 1
	}
	this := class(name)
	var sup uint16
	if super != "" {
		sup = class(super)
	}
	var ifs []uint16
	for _, i := range ifaces {
		ifs = append(ifs, class(i))
	}
	type m struct{ access, name, desc uint16 }
	var ms []m
	for _, fm := range methods {
		acc := fm.access
		if acc == 0 {
			acc = 0x0001
		}
		ms = append(ms, m{acc, utf8(fm.name), utf8(fm.desc)})
	}
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.BigEndian, v) }
	w(uint32(0xCAFEBABE))
	w(uint16(0))
	w(uint16(61))
	w(count)
	b.Write(pool.Bytes())
	w(uint16(0x0021)) // public super
	w(this)
	w(sup)
	w(uint16(len(ifs)))
	for _, i := range ifs {
		w(i)
	}
	w(uint16(0)) // fields
	w(uint16(len(ms)))
	for _, x := range ms {
		w(x.access)
		w(x.name)
		w(x.desc)
		w(uint16(0))
	}
	w(uint16(0)) // attributes
	return b.Bytes()
}

// fakeClasses are a few JDK classes: enough for lint through a workspace
// class extending java.util.AbstractList.
func fakeClasses() map[string][]byte {
	return map[string][]byte{
		"java/lang/Object": classFile("java/lang/Object", "", nil,
			fakeMethod{name: "hashCode", desc: "()I"}, fakeMethod{name: "toString", desc: "()Ljava/lang/String;"}),
		"java/util/Collection": classFile("java/util/Collection", "java/lang/Object", nil,
			fakeMethod{name: "size", desc: "()I", access: 0x0401}, fakeMethod{name: "contains", desc: "(Ljava/lang/Object;)Z", access: 0x0401}),
		"java/util/List": classFile("java/util/List", "java/lang/Object", []string{"java/util/Collection"},
			fakeMethod{name: "get", desc: "(I)Ljava/lang/Object;", access: 0x0401},
			fakeMethod{name: "of", desc: "([Ljava/lang/Object;)Ljava/util/List;", access: 0x0009 | 0x0080}),
		"java/util/AbstractList": classFile("java/util/AbstractList", "java/lang/Object", []string{"java/util/List"},
			fakeMethod{name: "<init>", desc: "()V", access: 0x0004}, fakeMethod{name: "subList", desc: "(II)Ljava/util/List;"},
			fakeMethod{name: "removeRange", desc: "(II)V", access: 0x0004}, fakeMethod{name: "secret", desc: "()V", access: 0x0002}),
		"java/util/Map$Entry": classFile("java/util/Map$Entry", "java/lang/Object", nil, fakeMethod{name: "getKey", desc: "()Ljava/lang/Object;", access: 0x0401}),
		"java/util/Map":       classFile("java/util/Map", "java/lang/Object", nil),
		"java/util/Map$1":     classFile("java/util/Map$1", "java/lang/Object", nil), // anonymous: left out
		"javax/swing/JList":   classFile("javax/swing/JList", "java/lang/Object", nil, fakeMethod{name: "setModel", desc: "(Ljava/lang/Object;)V"}),
		"jdk/internal/Misc":   classFile("jdk/internal/Misc", "java/lang/Object", nil), // the JDK's internals: left out
		"org/xml/sax/helpers/DefaultHandler": classFile("org/xml/sax/helpers/DefaultHandler", "java/lang/Object", nil,
			fakeMethod{name: "startElement", desc: "(Ljava/lang/String;)V"}),
	}
}

// writeFakeZip writes a zip of name → bytes.
func writeFakeZip(t *testing.T, p string, files map[string][]byte) string {
	t.Helper()
	text := make(map[string]string, len(files))
	for n, b := range files {
		text[n] = string(b)
	}
	fixture.Zip(t, p, text)
	return p
}

// fakeCtSym writes a ct.sym whose sections hold the fake classes: every
// class in "GH" (releases 16 and 17, with a module directory), Object also
// in "8" in JDK 9's layout (no module directory), ArrayList only in "H"
// (new in 17 here), a module description section and sysModules, when not
// "", a system-modules file in that section.
func fakeCtSym(t *testing.T, p, sysModules string) string {
	files := map[string][]byte{}
	for name, data := range fakeClasses() {
		mod := "java.base"
		if strings.HasPrefix(name, "javax/") {
			mod = "java.desktop"
		}
		files["GH/"+mod+"/"+name+".sig"] = data
	}
	files["8/java/lang/Object.sig"] = fakeClasses()["java/lang/Object"]
	files["H/java.base/java/util/ArrayList.sig"] = classFile("java/util/ArrayList", "java/util/AbstractList", nil, fakeMethod{name: "trimToSize", desc: "()V"})
	files["GH-modules/java.base/module-info.sig"] = []byte("not read")
	if sysModules != "" {
		files[sysModules+"/system-modules"] = []byte("java.base\n")
	}
	return writeFakeZip(t, p, files)
}

// jimageRes is a resource of a fake runtime image.
type jimageRes struct {
	module, parent, base, ext string
	data                      []byte
	// compressor, when not "", wraps data in a compressed header naming it
	// (zlib-deflated when "zip").
	compressor string
}

// fakeJimage writes a runtime image in byte order order holding res (the
// hash table's redirects are zero: the reader scans every location).
func fakeJimage(t *testing.T, p string, order binary.ByteOrder, res []jimageRes) string {
	t.Helper()
	var strs bytes.Buffer
	strs.WriteByte(0) // offset 0: ""
	strOff := map[string]uint64{"": 0}
	str := func(s string) uint64 {
		if o, ok := strOff[s]; ok {
			return o
		}
		o := uint64(strs.Len())
		strs.WriteString(s)
		strs.WriteByte(0)
		strOff[s] = o
		return o
	}
	var locs, content bytes.Buffer
	var offsets []uint32
	attr := func(kind int, v uint64) {
		n := 1
		for x := v >> 8; x > 0; x >>= 8 {
			n++
		}
		locs.WriteByte(byte(kind<<3 | (n - 1)))
		for i := n - 1; i >= 0; i-- {
			locs.WriteByte(byte(v >> (8 * i)))
		}
	}
	for _, r := range res {
		data := r.data
		var compressed uint64
		if r.compressor != "" {
			var z bytes.Buffer
			if r.compressor == "zip" {
				zw := zlib.NewWriter(&z)
				zw.Write(data)
				zw.Close()
			} else {
				z.Write(data)
			}
			hdr := make([]byte, jimageCompressedSize)
			order.PutUint32(hdr, jimageCompressedMagic)
			order.PutUint64(hdr[4:], uint64(z.Len()))
			order.PutUint64(hdr[12:], uint64(len(data)))
			order.PutUint32(hdr[20:], uint32(str(r.compressor)))
			hdr[28] = 1
			data = append(hdr, z.Bytes()...)
			compressed = uint64(len(data))
		}
		offsets = append(offsets, uint32(locs.Len()))
		attr(attrModule, str(r.module))
		attr(attrParent, str(r.parent))
		attr(attrBase, str(r.base))
		attr(attrExtension, str(r.ext))
		attr(attrOffset, uint64(content.Len()))
		attr(attrCompressed, compressed)
		attr(attrUncompressed, uint64(len(r.data)))
		locs.WriteByte(0)
		content.Write(data)
	}
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, order, v) }
	w(uint32(jimageMagic))
	w(uint32(1 << 16)) // version 1.0
	w(uint32(0))
	w(uint32(len(res)))
	w(uint32(len(res)))
	w(uint32(locs.Len()))
	w(uint32(strs.Len()))
	for range res {
		w(int32(0)) // redirect
	}
	for _, o := range offsets {
		w(o)
	}
	b.Write(locs.Bytes())
	b.Write(strs.Bytes())
	b.Write(content.Bytes())
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeModules writes a runtime image of the fake classes, their resources
// compressed by compressor ("" for none), as jlink --compress does.
func fakeModules(t *testing.T, p string, order binary.ByteOrder, compressor string) string {
	var res []jimageRes
	for name, data := range fakeClasses() {
		dir, base := filepath.Split(name)
		res = append(res, jimageRes{module: "java.base", parent: strings.TrimSuffix(dir, "/"), base: base, ext: "class", data: data, compressor: compressor})
	}
	res = append(res,
		jimageRes{module: "java.base", parent: "java/util", base: "ArrayList", ext: "class", compressor: compressor,
			data: classFile("java/util/ArrayList", "java/util/AbstractList", nil, fakeMethod{name: "trimToSize", desc: "()V"})},
		jimageRes{module: "java.base", parent: "java/lang", base: "module-info", ext: "class", data: []byte("x")},
		jimageRes{module: "java.base", parent: "java/util", base: "data", ext: "properties", data: []byte("a=b")},
		jimageRes{module: "packages", parent: "java.lang", base: "java.base"},
	)
	sort.Slice(res, func(i, j int) bool { return res[i].parent+res[i].base < res[j].parent+res[j].base })
	return fakeJimage(t, p, order, res)
}

// fakeSrcZipFile writes a src.zip declaring a few classes.
func fakeSrcZipFile(t *testing.T, p string) string {
	return writeFakeZip(t, p, map[string][]byte{
		"java.base/java/lang/Object.java":       []byte("package java.lang; public class Object { public native int hashCode(); }"),
		"java.base/java/util/AbstractList.java": []byte("package java.util; public abstract class AbstractList<E> { public List<E> subList(int a, int b) { return null; } }"),
		"java.base/java/util/List.java":         []byte("package java.util; public interface List<E> { }"),
	})
}

// writeFile writes data to p, making its directory.
func writeFile(t *testing.T, p, data string) {
	t.Helper()
	fixture.WriteFiles(t, filepath.Dir(p), map[string]string{filepath.Base(p): data})
}
