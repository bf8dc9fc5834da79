package classfile

// The canonical form of a class file (CanonicalForm) is what a cache keys
// measurements on: everything that can change what the class does, minus
// the annotations its caller says no running code reads, in a form that
// does not depend on how the compiler numbered the constant pool. Kept
// apart from classfile.go, which reads declarations.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
)

// Canonical is a class file reduced to what can change its behaviour.
type Canonical struct {
	// Form is the bytes to hash. Every part of the class file is in it in
	// file order, after a 0 byte — versions, flags, names, fields, methods, bytecode,
	// attributes — except the dropped annotations, with each constant pool
	// index replaced by the value it names (so a constant only a dropped
	// annotation used is gone, and renumbering the pool changes nothing).
	// Line numbers count from the first line of their method: a method
	// moved down the file by lines added above it is the same code.
	Form []byte
	// Classes are the binary names (dots) of the classes the kept parts
	// name: class constants and the object types inside descriptors and
	// signatures. A name may be a false match; none is missed.
	Classes []string
	// Opaque says why the class could not be read part by part (an
	// attribute or an opcode this reader does not know, a damaged body);
	// Form is then the whole file as it is and Classes come from every
	// constant, as if nothing were dropped.
	Opaque string
}

// CanonicalForm reads data and returns its canonical form. drop is asked
// for each annotation of the class, its fields, methods, parameters and
// record components (visible, invisible and type annotations), with the
// annotation type's descriptor ("Ldev/perfls/SPL;"); the annotations it
// accepts are left out, those nested in kept annotations stay. A damaged
// constant pool is an error; a body this reader cannot follow gives the
// whole file (Opaque).
func CanonicalForm(data []byte, drop func(descriptor string) bool) (Canonical, error) {
	z := Canonicalizer{Drop: drop}
	return z.Form(data)
}

// A Canonicalizer computes canonical forms one class after another,
// reusing its memory: what Form returns is valid until its next call.
// A cache fingerprints hundreds of classes on every check.
type Canonicalizer struct {
	Drop func(descriptor string) bool // as for CanonicalForm
	c    canon
	p    cpool
}

// Form is CanonicalForm with z's drop rule and memory.
func (z *Canonicalizer) Form(data []byte) (Canonical, error) {
	r := reader{b: data}
	if r.u4() != 0xCAFEBABE {
		return Canonical{}, ErrNotClass
	}
	r.u2() // minor
	r.u2() // major
	if r.err != nil {
		return Canonical{}, fmt.Errorf("class file: %w", r.err)
	}
	p := &z.p
	if err := p.scan(&r); err != nil {
		return Canonical{}, fmt.Errorf("class file: %w", err)
	}
	// Values are longer than the indices they replace: room for most.
	out := z.c.out[:0]
	if cap(out) < 2*len(data) {
		out = make([]byte, 0, 2*len(data))
	}
	// A 0 first: no canonical form is the bytes of a class file (0xCA…).
	z.c = canon{r: r, p: p, drop: z.Drop, out: append(append(out, 0), data[4:8]...)} // minor, major
	if err := z.c.body(); err != nil {
		return Canonical{Form: data, Classes: p.classes(true), Opaque: err.Error()}, nil
	}
	return Canonical{Form: z.c.out, Classes: p.classes(false)}, nil
}

// cpool locates the constant pool's entries and keeps the canonical value
// of those the kept parts name.
type cpool struct {
	arena    []byte          // backs the composite values; a full arena is replaced, never overwritten
	named    map[string]bool // classes listed so far (classes)
	data     []byte
	off      []int    // offset of entry i's tag byte; 0 for index 0 and the second slot of a long or double
	resolved [][]byte // canonical value of entry i once something kept named it
}

// scan locates the entries of the pool at r, reusing p's memory.
func (p *cpool) scan(r *reader) error {
	n := int(r.u2())
	if cap(p.off) < n {
		p.off, p.resolved = make([]int, n), make([][]byte, n)
	}
	p.data, p.off, p.resolved = r.b, p.off[:n], p.resolved[:n]
	clear(p.off)
	clear(p.resolved)
	p.arena = p.arena[:0]
	for i := 1; i < n; i++ {
		p.off[i] = r.off
		tag := r.u1()
		if tag == tagUtf8 {
			r.bytes(int(r.u2()))
		} else if err := skipEntry(r, tag, &i); err != nil {
			return err
		}
		if r.err != nil {
			return fmt.Errorf("constant pool entry %d: %w", i, r.err)
		}
	}
	return nil
}

func (p *cpool) tag(i uint16) uint8 {
	if int(i) >= len(p.off) || p.off[i] == 0 {
		return 0
	}
	return p.data[p.off[i]]
}

// utf8 returns the raw (modified UTF-8) bytes of a Utf8 entry.
func (p *cpool) utf8(i uint16) ([]byte, bool) {
	if p.tag(i) != tagUtf8 {
		return nil, false
	}
	o := p.off[i]
	n := int(binary.BigEndian.Uint16(p.data[o+1:]))
	return p.data[o+3 : o+3+n], true
}

// resolve returns the canonical value of entry i: its tag and contents with
// every index it holds replaced by that entry's value, recursively. Each
// value is self-delimiting (Utf8 carries its length), so values written one
// after the other cannot be read two ways. want, when not 0, is the tag the
// referring structure requires.
func (p *cpool) resolve(i uint16, want uint8) ([]byte, error) {
	tag := p.tag(i)
	if tag == 0 || (want != 0 && tag != want) {
		return nil, fmt.Errorf("constant pool index %d: not a valid entry here", i)
	}
	if v := p.resolved[i]; v != nil {
		return v, nil
	}
	o := p.off[i]
	d := p.data
	u2 := func(at int) uint16 { return binary.BigEndian.Uint16(d[o+at:]) }
	var v []byte
	var err error
	switch tag {
	case tagUtf8:
		v = d[o : o+3+int(u2(1))]
	case tagInteger, tagFloat:
		v = d[o : o+5]
	case tagLong, tagDouble:
		v = d[o : o+9]
	case tagClass, tagString, tagMethodType, tagModule, tagPackage:
		v, err = p.compose(tag, nil, ref{u2(1), tagUtf8})
	case tagFieldref, tagMethodref, tagInterfaceMethodref:
		v, err = p.compose(tag, nil, ref{u2(1), tagClass}, ref{u2(3), tagNameAndType})
	case tagNameAndType:
		v, err = p.compose(tag, nil, ref{u2(1), tagUtf8}, ref{u2(3), tagUtf8})
	case tagMethodHandle:
		target := u2(2)
		if t := p.tag(target); t != tagFieldref && t != tagMethodref && t != tagInterfaceMethodref {
			return nil, fmt.Errorf("constant pool index %d: method handle of entry %d, not a member", i, target)
		}
		v, err = p.compose(tag, d[o+1:o+2], ref{target, 0})
	case tagDynamic, tagInvokeDynamic:
		// The bootstrap method's number indexes the BootstrapMethods
		// attribute, which is in the form in order.
		v, err = p.compose(tag, d[o+1:o+3], ref{u2(3), tagNameAndType})
	}
	if err != nil {
		return nil, fmt.Errorf("constant pool index %d: %w", i, err)
	}
	p.resolved[i] = v
	return v, nil
}

type ref struct {
	index uint16
	tag   uint8
}

func (p *cpool) compose(tag uint8, raw []byte, refs ...ref) ([]byte, error) {
	var parts [2][]byte
	size := 1 + len(raw)
	for k, r := range refs {
		// The tags required (and the member check of method handles) make
		// the references a DAG at most four deep: no entry reaches itself.
		rv, err := p.resolve(r.index, r.tag)
		if err != nil {
			return nil, err
		}
		parts[k] = rv
		size += len(rv)
	}
	if cap(p.arena)-len(p.arena) < size {
		p.arena = make([]byte, 0, max(4096, size))
	}
	start := len(p.arena)
	p.arena = append(append(p.arena, tag), raw...)
	for _, part := range parts[:len(refs)] {
		p.arena = append(p.arena, part...)
	}
	return p.arena[start:len(p.arena):len(p.arena)], nil
}

// classes lists the classes named by the resolved entries (all entries
// when all is set): Class entries, and the object types inside every Utf8
// that may be a descriptor or a signature. Each name once.
func (p *cpool) classes(all bool) []string {
	var out []string
	if p.named == nil {
		p.named = map[string]bool{}
	}
	clear(p.named)
	add := func(internal []byte) {
		internal = bytes.TrimLeft(internal, "[")
		if len(internal) > 1 && internal[0] == 'L' && internal[len(internal)-1] == ';' {
			internal = internal[1 : len(internal)-1]
		}
		if len(internal) == 0 || bytes.ContainsAny(internal, ";[<>()") || p.named[string(internal)] {
			return
		}
		p.named[string(internal)] = true
		out = append(out, binaryName(internal))
	}
	for i := range p.off {
		if !all && p.resolved[i] == nil {
			continue
		}
		switch p.tag(uint16(i)) {
		case tagClass:
			if name, ok := p.utf8(binary.BigEndian.Uint16(p.data[p.off[i]+1:])); ok {
				add(name)
			}
		case tagUtf8:
			// Descriptors and generic signatures start with one of "([L<".
			if s, _ := p.utf8(uint16(i)); len(s) > 0 && bytes.IndexByte([]byte("([L<"), s[0]) >= 0 {
				descriptorClasses(s, add)
			}
		}
	}
	return out
}

// binaryName turns an internal name (modified UTF-8, slashes) into a
// binary name with dots, in one allocation when it is ASCII.
func binaryName(internal []byte) string {
	var sb strings.Builder
	sb.Grow(len(internal))
	for _, c := range internal {
		if c >= 0x80 || c == 0 {
			return strings.ReplaceAll(decodeModifiedUTF8(internal), "/", ".")
		}
		if c == '/' {
			c = '.'
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// descriptorClasses calls add for every class named in a field or method
// descriptor or a generic signature: "(ILp/Config;)Ljava/util/List;" names
// p/Config and java/util/List. Type variables ("TT;") are skipped; a false
// match can only add a class, which over-invalidates but never misses one.
func descriptorClasses(s []byte, add func([]byte)) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'L':
			j := i + 1
			for j < len(s) && s[j] != ';' && s[j] != '<' {
				j++
			}
			if name := s[i+1 : j]; !bytes.ContainsAny(name, ":.") {
				add(name)
			}
			i = j
		case 'T':
			for i < len(s) && s[i] != ';' {
				i++
			}
		}
	}
}

// canon reads the class body after the constant pool and writes its
// canonical form to out.
type canon struct {
	r    reader // swapped for each attribute's body
	p    *cpool
	drop func(string) bool
	out  []byte
	// skipping is set while a dropped annotation is read: its references
	// are checked but not resolved, so its constants count nowhere.
	skipping bool
}

func (c *canon) raw(n int) {
	if b := c.r.bytes(n); b != nil && !c.skipping {
		c.out = append(c.out, b...)
	}
}

func (c *canon) u1() uint8 {
	v := c.r.u1()
	if !c.skipping {
		c.out = append(c.out, v)
	}
	return v
}

func (c *canon) u2() uint16 {
	v := c.r.u2()
	if !c.skipping {
		c.out = binary.BigEndian.AppendUint16(c.out, v)
	}
	return v
}

// ref reads a constant pool index and writes the value it names; want is
// the tag the structure requires (0: any), zeroOK allows index 0 ("none").
func (c *canon) ref(want uint8, zeroOK bool) error {
	i := c.r.u2()
	if c.r.err != nil {
		return c.r.err
	}
	if i == 0 && zeroOK {
		if !c.skipping {
			c.out = append(c.out, 0) // no tag is 0
		}
		return nil
	}
	if c.skipping {
		if t := c.p.tag(i); t == 0 || (want != 0 && t != want) {
			return fmt.Errorf("constant pool index %d: not a valid entry here", i)
		}
		return nil
	}
	v, err := c.p.resolve(i, want)
	if err != nil {
		return err
	}
	c.out = append(c.out, v...)
	return nil
}

// peek returns the next u2 without reading it (0 at the end).
func (c *canon) peek() uint16 {
	if c.r.err != nil || len(c.r.b)-c.r.off < 2 {
		return 0
	}
	return binary.BigEndian.Uint16(c.r.b[c.r.off:])
}

// refs reads n references of kind want.
func (c *canon) refs(n int, want uint8, zeroOK bool) error {
	for ; n > 0; n-- {
		if err := c.ref(want, zeroOK); err != nil {
			return err
		}
	}
	return c.r.err
}

func (c *canon) body() error {
	c.u2() // access flags
	if err := c.ref(tagClass, false); err != nil {
		return fmt.Errorf("this_class: %w", err)
	}
	if err := c.ref(tagClass, true); err != nil {
		return fmt.Errorf("super_class: %w", err)
	}
	if err := c.refs(int(c.u2()), tagClass, false); err != nil {
		return fmt.Errorf("interfaces: %w", err)
	}
	for _, what := range []string{"field", "method"} {
		for n := c.u2(); n > 0 && c.r.err == nil; n-- {
			c.u2() // access flags
			name, _ := c.p.utf8(c.peek())
			if err := c.refs(2, tagUtf8, false); err != nil { // name, descriptor
				return fmt.Errorf("%s %s: %w", what, name, err)
			}
			if err := c.attributes(); err != nil {
				return fmt.Errorf("%s %s: %w", what, name, err)
			}
		}
	}
	if err := c.attributes(); err != nil {
		return fmt.Errorf("class: %w", err)
	}
	if c.r.err != nil {
		return c.r.err
	}
	if c.r.off != len(c.r.b) {
		return fmt.Errorf("%d bytes after the class", len(c.r.b)-c.r.off)
	}
	return nil
}

// attributes reads an attribute table and writes the count of the
// attributes kept and each one's name, canonical length and body.
func (c *canon) attributes() error {
	countAt := len(c.out)
	n := c.u2()
	kept := uint16(0)
	for ; n > 0 && c.r.err == nil; n-- {
		start := len(c.out)
		nameIdx := c.r.u2()
		name, ok := c.p.utf8(nameIdx)
		if !ok {
			return fmt.Errorf("attribute name: constant pool index %d is not a UTF-8 string", nameIdx)
		}
		c.p.resolve(nameIdx, tagUtf8) // cannot fail: checked above
		c.out = append(c.out, c.p.resolved[nameIdx]...)
		lenAt := len(c.out)
		c.out = append(c.out, 0, 0, 0, 0)
		size := int(c.r.u4())
		body := c.r.bytes(size)
		if body == nil && size > 0 {
			return c.r.err
		}
		outer := c.r
		c.r = reader{b: body}
		keep, err := c.attribute(name)
		if err == nil && c.r.err == nil && c.r.off != len(body) {
			err = fmt.Errorf("%d bytes left", len(body)-c.r.off)
		}
		if err == nil {
			err = c.r.err
		}
		c.r = outer
		if err != nil {
			return fmt.Errorf("attribute %s: %w", name, err)
		}
		if !keep {
			c.out = c.out[:start]
			continue
		}
		binary.BigEndian.PutUint32(c.out[lenAt:], uint32(len(c.out)-lenAt-4))
		kept++
	}
	binary.BigEndian.PutUint16(c.out[countAt:], kept)
	return c.r.err
}

// attribute reads one attribute's body (JVMS 4.7) and reports whether it
// stays (an annotation table whose annotations were all dropped does not,
// so that the first formula added to a method changes nothing).
func (c *canon) attribute(name []byte) (bool, error) {
	switch string(name) { // no copy: the compiler compares the bytes
	case "Deprecated", "Synthetic", "SourceDebugExtension":
		c.raw(len(c.r.b))
	case "SourceFile", "Signature":
		return true, c.ref(tagUtf8, false)
	case "NestHost", "ModuleMainClass":
		return true, c.ref(tagClass, false)
	case "ConstantValue":
		return true, c.ref(0, false)
	case "Exceptions", "NestMembers", "PermittedSubclasses":
		return true, c.refs(int(c.u2()), tagClass, false)
	case "ModulePackages":
		return true, c.refs(int(c.u2()), tagPackage, false)
	case "InnerClasses", "BootstrapMethods", "MethodParameters", "Record", "LocalVariableTable", "LocalVariableTypeTable":
		if err := c.table(name); err != nil {
			return false, err
		}
	case "EnclosingMethod":
		if err := c.ref(tagClass, false); err != nil {
			return false, err
		}
		return true, c.ref(tagNameAndType, true)
	case "Code":
		return true, c.code()
	case "LineNumberTable":
		c.lineNumbers()
	case "StackMapTable":
		return true, c.stackMap()
	case "AnnotationDefault":
		return true, c.elementValue()
	case "RuntimeVisibleAnnotations", "RuntimeInvisibleAnnotations":
		return c.annotations(false)
	case "RuntimeVisibleTypeAnnotations", "RuntimeInvisibleTypeAnnotations":
		return c.annotations(true)
	case "RuntimeVisibleParameterAnnotations", "RuntimeInvisibleParameterAnnotations":
		kept := 0
		for n := c.u1(); n > 0 && c.r.err == nil; n-- {
			if _, err := c.annotationTable(false, &kept); err != nil {
				return false, err
			}
		}
		return kept > 0, nil
	default:
		// Module (module-info only) and attributes of other tools: their
		// layout, and which constants they use, is unknown here.
		return false, fmt.Errorf("not known")
	}
	return true, nil
}

// table reads the body of attribute name, one of the tables of entries
// that refer to constants.
func (c *canon) table(name []byte) error {
	switch string(name) { // no copy, as in attribute
	case "InnerClasses":
		for n := c.u2(); n > 0 && c.r.err == nil; n-- {
			if err := c.ref(tagClass, false); err != nil {
				return err
			}
			if err := c.ref(tagClass, true); err != nil {
				return err
			}
			if err := c.ref(tagUtf8, true); err != nil {
				return err
			}
			c.u2() // flags
		}
	case "BootstrapMethods":
		for n := c.u2(); n > 0 && c.r.err == nil; n-- {
			if err := c.ref(tagMethodHandle, false); err != nil {
				return err
			}
			if err := c.refs(int(c.u2()), 0, false); err != nil {
				return err
			}
		}
	case "MethodParameters":
		for n := c.u1(); n > 0 && c.r.err == nil; n-- {
			if err := c.ref(tagUtf8, true); err != nil {
				return err
			}
			c.u2() // flags
		}
	case "Record":
		for n := c.u2(); n > 0 && c.r.err == nil; n-- {
			if err := c.refs(2, tagUtf8, false); err != nil {
				return err
			}
			if err := c.attributes(); err != nil {
				return err
			}
		}
	case "LocalVariableTable", "LocalVariableTypeTable":
		for n := c.u2(); n > 0 && c.r.err == nil; n-- {
			c.raw(4) // start_pc, length
			if err := c.refs(2, tagUtf8, false); err != nil {
				return err
			}
			c.raw(2) // index
		}
	}
	return nil
}

// lineNumbers writes a LineNumberTable with lines counted from the first
// line of the table.
func (c *canon) lineNumbers() {
	n := int(c.r.u2())
	entries := c.r.bytes(4 * n)
	if entries == nil && n > 0 {
		return
	}
	first := uint16(0xFFFF)
	for i := 0; i < n; i++ {
		first = min(first, binary.BigEndian.Uint16(entries[4*i+2:]))
	}
	c.out = binary.BigEndian.AppendUint16(c.out, uint16(n))
	for i := 0; i < n; i++ {
		c.out = append(c.out, entries[4*i:4*i+2]...) // start_pc
		c.out = binary.BigEndian.AppendUint16(c.out, binary.BigEndian.Uint16(entries[4*i+2:])-first)
	}
}

// code reads a Code attribute: its bytecode with the constant pool
// operands replaced by their values, its exception table and attributes.
func (c *canon) code() error {
	c.raw(4) // max_stack, max_locals
	size := c.r.u4()
	code := c.r.bytes(int(size))
	if c.r.err != nil {
		return c.r.err
	}
	c.out = binary.BigEndian.AppendUint32(c.out, size)
	if err := c.bytecode(code); err != nil {
		return err
	}
	for n := c.u2(); n > 0 && c.r.err == nil; n-- {
		c.raw(6) // start_pc, end_pc, handler_pc
		if err := c.ref(tagClass, true); err != nil {
			return fmt.Errorf("exception table: %w", err)
		}
	}
	return c.attributes()
}

// operand kinds of the opcodes (JVMS chapter 6): the instruction's length,
// or one of the variable kinds below; 0 is an opcode that is not defined.
const (
	opSwitch = 0xF0 + iota // tableswitch, lookupswitch
	opWide
	opCP1 // ldc: u1 index
	opCP2 // u2 index, then length-3 more bytes given in cpTail
)

var opLength = func() (t [256]uint8) {
	for op := 0x00; op <= 0xc9; op++ {
		t[op] = 1
	}
	for _, op := range []int{0x10, 0x15, 0x16, 0x17, 0x18, 0x19, 0xa9, 0xbc} { // bipush, loads, ret, newarray
		t[op] = 2
	}
	for _, op := range []int{0x36, 0x37, 0x38, 0x39, 0x3a} { // stores
		t[op] = 2
	}
	t[0x11], t[0x84] = 3, 3            // sipush, iinc
	for op := 0x99; op <= 0xa8; op++ { // if*, goto, jsr
		t[op] = 3
	}
	t[0xc6], t[0xc7] = 3, 3 // ifnull, ifnonnull
	t[0xc8], t[0xc9] = 5, 5 // goto_w, jsr_w
	t[0xaa], t[0xab] = opSwitch, opSwitch
	t[0xc4] = opWide
	t[0x12] = opCP1 // ldc
	for _, op := range []int{0x13, 0x14, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbd, 0xc0, 0xc1, 0xc5} {
		t[op] = opCP2
	}
	return t
}()

// cpTail is the number of bytes after the u2 index of an opCP2 opcode.
var cpTail = map[uint8]int{0xb9: 2, 0xba: 2, 0xc5: 1} // invokeinterface count+0, invokedynamic 0 0, multianewarray dims

func (c *canon) bytecode(code []byte) error {
	for pc := 0; pc < len(code); {
		op := code[pc]
		n := int(opLength[op])
		switch opLength[op] {
		case 0:
			return fmt.Errorf("opcode 0x%02x at %d is not known", op, pc)
		case opCP1, opCP2:
			width := 1
			if opLength[op] == opCP2 {
				width = 2
			}
			n = 1 + width + cpTail[op]
			if pc+n > len(code) {
				return fmt.Errorf("bytecode truncated at %d", pc)
			}
			i := uint16(code[pc+1])
			if width == 2 {
				i = binary.BigEndian.Uint16(code[pc+1:])
			}
			v, err := c.p.resolve(i, 0)
			if err != nil {
				return fmt.Errorf("bytecode at %d: %w", pc, err)
			}
			c.out = append(c.out, op)
			c.out = append(c.out, v...)
			c.out = append(c.out, code[pc+1+width:pc+n]...)
			pc += n
			continue
		case opSwitch:
			at := pc + 1 + (3-pc%4)%4 // operands are 4-byte aligned from the code's start
			if at+12 > len(code) && !(op == 0xab && at+8 <= len(code)) {
				return fmt.Errorf("bytecode truncated at %d", pc)
			}
			var size int64
			if op == 0xaa { // tableswitch: default, low, high, offsets
				low, high := int32(binary.BigEndian.Uint32(code[at+4:])), int32(binary.BigEndian.Uint32(code[at+8:]))
				size = 12 + 4*(int64(high)-int64(low)+1)
				if high < low {
					size = -1
				}
			} else { // lookupswitch: default, npairs, pairs
				size = 8 + 8*int64(int32(binary.BigEndian.Uint32(code[at+4:])))
			}
			if size < 8 || int64(at)+size > int64(len(code)) {
				return fmt.Errorf("bytecode: bad switch at %d", pc)
			}
			n = at + int(size) - pc
		case opWide:
			n = 4
			if pc+1 < len(code) && code[pc+1] == 0x84 { // wide iinc
				n = 6
			}
		}
		if pc+n > len(code) {
			return fmt.Errorf("bytecode truncated at %d", pc)
		}
		c.out = append(c.out, code[pc:pc+n]...)
		pc += n
	}
	return nil
}

// stackMap reads a StackMapTable (JVMS 4.7.4).
func (c *canon) stackMap() error {
	for n := c.u2(); n > 0 && c.r.err == nil; n-- {
		t := c.u1()
		var types int
		switch {
		case t < 64:
		case t < 128:
			types = 1
		case t < 247:
			return fmt.Errorf("stack map frame type %d is reserved", t)
		case t == 247:
			c.raw(2)
			types = 1
		case t < 252:
			c.raw(2)
		case t < 255:
			c.raw(2)
			types = int(t) - 251
		default: // full frame: locals, then stack
			c.raw(2)
			if err := c.verificationTypes(int(c.u2())); err != nil {
				return err
			}
			types = int(c.u2())
		}
		if err := c.verificationTypes(types); err != nil {
			return err
		}
	}
	return c.r.err
}

func (c *canon) verificationTypes(n int) error {
	for ; n > 0 && c.r.err == nil; n-- {
		switch t := c.u1(); {
		case t == 7: // Object: a class
			if err := c.ref(tagClass, false); err != nil {
				return err
			}
		case t == 8: // Uninitialized: an offset
			c.raw(2)
		case t > 8:
			return fmt.Errorf("verification type %d is not known", t)
		}
	}
	return c.r.err
}

// annotations reads a RuntimeVisibleAnnotations-like table and reports
// whether any annotation stayed.
func (c *canon) annotations(typed bool) (bool, error) {
	kept := 0
	return c.annotationTable(typed, &kept)
}

// annotationTable reads a u2 count and its annotations, drops those drop
// accepts, writes the count kept and adds it to *kept.
func (c *canon) annotationTable(typed bool, kept *int) (bool, error) {
	countAt := len(c.out)
	n := c.u2()
	k := uint16(0)
	for ; n > 0 && c.r.err == nil; n-- {
		start := len(c.out)
		if typed {
			if err := c.typeTarget(); err != nil {
				return false, err
			}
		}
		dropped, err := c.annotation(true)
		if err != nil {
			return false, err
		}
		if dropped {
			c.out = c.out[:start]
			continue
		}
		k++
	}
	if c.r.err != nil {
		return false, c.r.err
	}
	binary.BigEndian.PutUint16(c.out[countAt:], k)
	*kept += int(k)
	return k > 0, nil
}

// annotation reads one annotation; at the top level (droppable) it is
// read without resolving anything when drop accepts its type.
func (c *canon) annotation(droppable bool) (dropped bool, err error) {
	if droppable && !c.skipping && c.drop != nil {
		if desc, ok := c.p.utf8(c.peek()); ok && c.drop(string(desc)) {
			c.skipping, dropped = true, true
			defer func() { c.skipping = false }()
		}
	}
	if err := c.ref(tagUtf8, false); err != nil {
		return false, fmt.Errorf("annotation type: %w", err)
	}
	for n := c.u2(); n > 0 && c.r.err == nil; n-- {
		if err := c.ref(tagUtf8, false); err != nil {
			return false, fmt.Errorf("annotation element name: %w", err)
		}
		if err := c.elementValue(); err != nil {
			return false, err
		}
	}
	return dropped, c.r.err
}

// elementValue reads an annotation's element value (JVMS 4.7.16.1).
func (c *canon) elementValue() error {
	switch t := c.u1(); t {
	case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z', 's':
		return c.ref(0, false)
	case 'e':
		return c.refs(2, tagUtf8, false)
	case 'c':
		return c.ref(tagUtf8, false)
	case '@':
		_, err := c.annotation(false)
		return err
	case '[':
		for n := c.u2(); n > 0 && c.r.err == nil; n-- {
			if err := c.elementValue(); err != nil {
				return err
			}
		}
		return c.r.err
	default:
		if c.r.err != nil {
			return c.r.err
		}
		return fmt.Errorf("annotation element tag %q is not known", t)
	}
}

// typeTarget reads a type annotation's target_info and type_path (JVMS
// 4.7.20), which hold no constant pool index.
func (c *canon) typeTarget() error {
	switch t := c.u1(); {
	case t == 0x00 || t == 0x01 || t == 0x16:
		c.raw(1)
	case t == 0x10 || t == 0x17 || t == 0x42 || (t >= 0x43 && t <= 0x46):
		c.raw(2)
	case t == 0x11 || t == 0x12:
		c.raw(2)
	case t >= 0x13 && t <= 0x15:
	case t == 0x40 || t == 0x41:
		c.raw(6 * int(c.u2()))
	case t >= 0x47 && t <= 0x4B:
		c.raw(3)
	default:
		if c.r.err != nil {
			return c.r.err
		}
		return fmt.Errorf("type annotation target 0x%02x is not known", t)
	}
	c.raw(2 * int(c.u1())) // type_path
	return c.r.err
}
