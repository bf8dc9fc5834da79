// Package classfile reads the declarations of a Java class file (JVMS
// chapter 4): its name, supertypes, access flags, methods with their
// descriptors turned into Java source types, its source file name and its
// nested classes. It reads bytes it is given and does no I/O; a malformed or
// truncated class file is an error, never a panic.
package classfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Access flags (JVMS tables 4.1-B, 4.6-A, 4.7.6-A) that perfls reads.
const (
	AccPublic    = 0x0001
	AccPrivate   = 0x0002
	AccProtected = 0x0004
	AccStatic    = 0x0008
	AccFinal     = 0x0010
	AccBridge    = 0x0040
	AccVarargs   = 0x0080
	AccInterface = 0x0200
	AccAbstract  = 0x0400
	AccSynthetic = 0x1000
	AccEnum      = 0x4000
	AccModule    = 0x8000
)

// Class is what perfls needs of a class file.
type Class struct {
	// Name is the binary name with dots: "org.jdom2.Element",
	// "java.util.Map$Entry".
	Name string
	// Access holds the class's flags; for a nested class, the flags of its
	// own InnerClasses entry (static, private, protected) are merged in.
	Access uint16
	// Super is the binary name of the superclass, "" for java.lang.Object
	// and module-info; Interfaces are the direct superinterfaces.
	Super      string
	Interfaces []string
	// SourceFile is the SourceFile attribute ("Element.java"), "" when the
	// compiler left it out.
	SourceFile string
	// Outer is the binary name of the enclosing class of a member class;
	// Anonymous marks an anonymous or local class (no usable name).
	Outer     string
	Anonymous bool
	// Nested are the binary names of the member classes declared in it.
	Nested  []string
	Methods []Method
	// Major is the class file's major version (52 is Java 8).
	Major uint16
}

// Method is one method or constructor.
type Method struct {
	Name       string // "<init>" for constructors, "<clinit>" for the static initialiser
	Access     uint16
	Descriptor string   // as in the class file: "(I[Ljava/lang/String;)V"
	Params     []string // Java source types: "int", "java.lang.String[]", "java.util.Map.Entry"
	Return     string   // "void", "int", "java.lang.Object"
	// ParamNames are the names of the parameters from the MethodParameters
	// attribute (javac -parameters); nil when absent.
	ParamNames []string
}

// Static, Abstract and so on read Access.
func (m Method) Static() bool   { return m.Access&AccStatic != 0 }
func (m Method) Abstract() bool { return m.Access&AccAbstract != 0 }
func (m Method) Varargs() bool  { return m.Access&AccVarargs != 0 }

// Hidden tells a method no Java source names: compiler-generated (bridge,
// synthetic, lambda bodies), the static initialiser, and private methods.
func (m Method) Hidden() bool {
	return m.Access&(AccBridge|AccSynthetic|AccPrivate) != 0 || m.Name == "<clinit>"
}

// Constructor tells a constructor.
func (m Method) Constructor() bool { return m.Name == "<init>" }

// ErrNotClass is returned for bytes that do not start with the class file
// magic number.
var ErrNotClass = errors.New("not a class file (bad magic number)")

// constant pool tags (JVMS table 4.4-B)
const (
	tagUtf8               = 1
	tagInteger            = 3
	tagFloat              = 4
	tagLong               = 5
	tagDouble             = 6
	tagClass              = 7
	tagString             = 8
	tagFieldref           = 9
	tagMethodref          = 10
	tagInterfaceMethodref = 11
	tagNameAndType        = 12
	tagMethodHandle       = 15
	tagMethodType         = 16
	tagDynamic            = 17
	tagInvokeDynamic      = 18
	tagModule             = 19
	tagPackage            = 20
)

// reader walks the bytes; the first out-of-range read sets err and every
// later read returns zero values, so callers check err once per section.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("at byte %d: %s", r.off, fmt.Sprintf(format, args...))
	}
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail("truncated (want %d more bytes, %d left)", n, len(r.b)-r.off)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u1() uint8 {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u2() uint16 {
	if b := r.bytes(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u4() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

// pool is the constant pool: the tag of each entry and, for the entries
// perfls follows, their text or the index they refer to.
type pool struct {
	tags  []uint8
	utf8  []string // by index, for Utf8 entries
	index []uint16 // by index: Class → its name's Utf8 index
}

func (p *pool) utf(i uint16) (string, error) {
	if int(i) >= len(p.tags) || p.tags[i] != tagUtf8 {
		return "", fmt.Errorf("constant pool entry %d is not a UTF-8 string", i)
	}
	return p.utf8[i], nil
}

// class returns the binary name (dots) of a Class entry.
func (p *pool) class(i uint16) (string, error) {
	if int(i) >= len(p.tags) || p.tags[i] != tagClass {
		return "", fmt.Errorf("constant pool entry %d is not a class", i)
	}
	s, err := p.utf(p.index[i])
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(s, "/", "."), nil
}

func readPool(r *reader) (*pool, error) {
	n := int(r.u2())
	p := &pool{tags: make([]uint8, n), utf8: make([]string, n), index: make([]uint16, n)}
	for i := 1; i < n; i++ {
		tag := r.u1()
		p.tags[i] = tag
		switch tag {
		case tagUtf8:
			l := int(r.u2())
			p.utf8[i] = decodeModifiedUTF8(r.bytes(l))
		case tagClass, tagString, tagMethodType, tagModule, tagPackage:
			p.index[i] = r.u2()
		default:
			if err := skipEntry(r, tag, &i); err != nil {
				return nil, err
			}
		}
		if r.err != nil {
			return nil, fmt.Errorf("constant pool entry %d: %w", i, r.err)
		}
	}
	return p, nil
}

// skipEntry skips the contents of constant pool entry *i after its tag
// (Utf8 aside, whose length comes first); a long or double takes two
// entries (JVMS 4.4.5), so *i moves past the second.
func skipEntry(r *reader, tag uint8, i *int) error {
	switch tag {
	case tagClass, tagString, tagMethodType, tagModule, tagPackage:
		r.bytes(2)
	case tagInteger, tagFloat, tagFieldref, tagMethodref, tagInterfaceMethodref, tagNameAndType, tagDynamic, tagInvokeDynamic:
		r.bytes(4)
	case tagLong, tagDouble:
		r.bytes(8)
		*i++
	case tagMethodHandle:
		r.bytes(3)
	default:
		if r.err == nil {
			return fmt.Errorf("constant pool entry %d: unknown tag %d", *i, tag)
		}
	}
	return nil
}

// decodeModifiedUTF8 decodes the JVM's modified UTF-8 (NUL as two bytes,
// supplementary characters as surrogate pairs). Identifiers are nearly
// always ASCII; anything undecodable becomes U+FFFD.
func decodeModifiedUTF8(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 || c == 0 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	var u16 []uint16
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x80:
			u16 = append(u16, uint16(c))
			i++
		case c&0xE0 == 0xC0 && i+1 < len(b):
			u16 = append(u16, uint16(c&0x1F)<<6|uint16(b[i+1]&0x3F))
			i += 2
		case c&0xF0 == 0xE0 && i+2 < len(b):
			u16 = append(u16, uint16(c&0x0F)<<12|uint16(b[i+1]&0x3F)<<6|uint16(b[i+2]&0x3F))
			i += 3
		default:
			u16 = append(u16, 0xFFFD)
			i++
		}
	}
	return decodeUTF16(u16)
}

func decodeUTF16(u []uint16) string {
	var sb strings.Builder
	for i := 0; i < len(u); i++ {
		c := rune(u[i])
		if c >= 0xD800 && c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000 {
			c = (c-0xD800)<<10 + rune(u[i+1]-0xDC00) + 0x10000
			i++
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

// Parse reads a class file's declarations. The error says what is wrong
// and where.
func Parse(data []byte) (*Class, error) {
	c, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("class file: %w", err)
	}
	return c, nil
}

func parse(data []byte) (*Class, error) {
	r := &reader{b: data}
	if r.u4() != 0xCAFEBABE {
		return nil, ErrNotClass
	}
	r.u2() // minor
	c := &Class{Major: r.u2()}
	if r.err != nil {
		return nil, r.err
	}
	p, err := readPool(r)
	if err != nil {
		return nil, err
	}
	c.Access = r.u2()
	this, super := r.u2(), r.u2()
	if r.err != nil {
		return nil, r.err
	}
	if c.Name, err = p.class(this); err != nil {
		return nil, fmt.Errorf("this_class: %w", err)
	}
	if super != 0 {
		if c.Super, err = p.class(super); err != nil {
			return nil, fmt.Errorf("super_class: %w", err)
		}
	}
	for n := r.u2(); n > 0 && r.err == nil; n-- {
		name, err := p.class(r.u2())
		if err != nil && r.err == nil {
			return nil, fmt.Errorf("interfaces: %w", err)
		}
		c.Interfaces = append(c.Interfaces, name)
	}
	for n := r.u2(); n > 0 && r.err == nil; n-- { // fields: skipped
		r.bytes(6)
		skipAttributes(r)
	}
	if r.err != nil {
		return nil, r.err
	}
	for n := r.u2(); n > 0 && r.err == nil; n-- {
		m, err := readMethod(r, p)
		if err != nil {
			return nil, err
		}
		c.Methods = append(c.Methods, m)
	}
	if r.err != nil {
		return nil, r.err
	}
	if err := readClassAttributes(r, p, c); err != nil {
		return nil, err
	}
	return c, r.err
}

func skipAttributes(r *reader) {
	for n := r.u2(); n > 0 && r.err == nil; n-- {
		r.u2()
		r.bytes(int(r.u4()))
	}
}

func readMethod(r *reader, p *pool) (Method, error) {
	var m Method
	m.Access = r.u2()
	nameIdx, descIdx := r.u2(), r.u2()
	if r.err != nil {
		return m, r.err
	}
	var err error
	if m.Name, err = p.utf(nameIdx); err != nil {
		return m, fmt.Errorf("method name: %w", err)
	}
	if m.Descriptor, err = p.utf(descIdx); err != nil {
		return m, fmt.Errorf("method %s descriptor: %w", m.Name, err)
	}
	if m.Params, m.Return, err = MethodDescriptor(m.Descriptor); err != nil {
		return m, fmt.Errorf("method %s: %w", m.Name, err)
	}
	for n := r.u2(); n > 0 && r.err == nil; n-- {
		name, _ := p.utf(r.u2())
		body := r.bytes(int(r.u4()))
		if name == "MethodParameters" && body != nil {
			m.ParamNames = methodParameters(body, p)
		}
	}
	return m, r.err
}

// methodParameters reads a MethodParameters attribute; nil when a name is
// missing (then none is trusted).
func methodParameters(body []byte, p *pool) []string {
	r := &reader{b: body}
	n := int(r.u1())
	names := make([]string, 0, n)
	for i := 0; i < n; i++ {
		idx := r.u2()
		r.u2() // flags
		s, err := p.utf(idx)
		if r.err != nil || err != nil || s == "" {
			return nil
		}
		names = append(names, s)
	}
	return names
}

func readClassAttributes(r *reader, p *pool, c *Class) error {
	for n := r.u2(); n > 0 && r.err == nil; n-- {
		name, _ := p.utf(r.u2())
		body := r.bytes(int(r.u4()))
		if body == nil {
			break
		}
		switch name {
		case "SourceFile":
			br := &reader{b: body}
			if s, err := p.utf(br.u2()); err == nil && br.err == nil {
				c.SourceFile = s
			}
		case "InnerClasses":
			if err := innerClasses(body, p, c); err != nil {
				return fmt.Errorf("InnerClasses: %w", err)
			}
		}
	}
	return r.err
}

// innerClasses reads the entries that concern c: its own (outer class,
// flags, anonymous) and the member classes it declares.
func innerClasses(body []byte, p *pool, c *Class) error {
	r := &reader{b: body}
	for n := r.u2(); n > 0 && r.err == nil; n-- {
		inner, outer, simple, flags := r.u2(), r.u2(), r.u2(), r.u2()
		if r.err != nil {
			break
		}
		innerName, err := p.class(inner)
		if err != nil {
			return err
		}
		outerName := ""
		if outer != 0 {
			if outerName, err = p.class(outer); err != nil {
				return err
			}
		}
		switch {
		case innerName == c.Name:
			c.Outer = outerName
			c.Anonymous = simple == 0 || outer == 0 // anonymous: no simple name; local: no outer
			c.Access |= flags & (AccStatic | AccPrivate | AccProtected)
		case outerName == c.Name && simple != 0:
			c.Nested = append(c.Nested, innerName)
		}
	}
	return r.err
}
