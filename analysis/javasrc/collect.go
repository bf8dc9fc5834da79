package javasrc

// collector finds the declarations of a tree. It walks the declaration
// structure (compilation unit, type bodies, members) directly and does not
// descend into method bodies, field initializers and the like, where only
// local and anonymous classes can hide: a member is searched (scan) only when its text could declare one (it contains a
// class/interface/enum/record keyword, or 'new' followed by '{' before the
// next ';') or it contains a syntax error. Walking a whole tree costs about
// as much as parsing it; this keeps extraction a small fraction of that.
type collector struct {
	b     *builder
	items []item
}

func (c *collector) add(kind itemKind, n, parent *fnode) {
	c.items = append(c.items, item{kind: kind, n: n, parent: parent, start: c.b.om.orig(int(n.StartByte()))})
}

var methodDeclKinds = map[string]bool{
	"method_declaration": true, "constructor_declaration": true,
	"compact_constructor_declaration": true, "annotation_type_element_declaration": true,
}

// walk visits the children of a compilation unit or a type body.
func (c *collector) walk(container *fnode) {
	for _, n := range container.allKids() {
		if !n.IsNamed() {
			continue
		}
		k := kindOf(n)
		switch {
		case declKinds[k] != "":
			c.add(itemType, n, nil)
			c.typeDecl(n)
		case k == "class_body" || k == "interface_body" || k == "enum_body" ||
			k == "enum_body_declarations" || k == "annotation_type_body":
			c.walk(n)
		case k == "enum_constant":
			c.enumConstant(n)
		case methodDeclKinds[k] || k == "field_declaration" || k == "constant_declaration":
			if methodDeclKinds[k] {
				c.add(itemMethod, n, nil)
			} else {
				c.add(itemField, n, nil)
			}
			c.scanIfNeeded(n)
		case k == "ERROR":
			c.scan(n, true)
		case k == "package_declaration" || k == "import_declaration" || isComment(k):
		default: // initializer blocks, top-level statements, ...
			c.scanIfNeeded(n)
		}
	}
}

// typeDecl visits a type declaration's body, and searches header parts
// that contain errors.
func (c *collector) typeDecl(n *fnode) {
	for _, ch := range n.allKids() {
		if !ch.IsNamed() {
			continue
		}
		switch k := kindOf(ch); k {
		case "class_body", "interface_body", "enum_body", "annotation_type_body":
			c.walk(ch)
		case "ERROR":
			c.scan(ch, true)
		}
	}
}

func (c *collector) enumConstant(n *fnode) {
	for _, ch := range n.allKids() {
		if !ch.IsNamed() {
			continue
		}
		switch kindOf(ch) {
		case "class_body":
			c.add(itemAnon, ch, n)
			c.walk(ch)
		case "argument_list", "ERROR":
			c.scanIfNeeded(ch)
		}
	}
}

func (c *collector) scanIfNeeded(n *fnode) {
	if n.HasError() || mayDeclareType(c.b.text(n)) {
		c.scan(n, false)
	}
}

// scan adds every declaration in n's subtree, wherever it is (inside
// ERROR nodes, method bodies, lambdas): types, anonymous class bodies
// (of 'new' expressions and enum constants), methods and fields. n itself
// is added only when self is set (its own item was added by the caller
// otherwise).
func (c *collector) scan(n *fnode, self bool) {
	var walk func(x *fnode)
	walk = func(x *fnode) {
		if x != n || self {
			k := kindOf(x)
			switch {
			case declKinds[k] != "":
				c.add(itemType, x, nil)
			case k == "object_creation_expression" || k == "enum_constant":
				for _, ch := range x.allKids() {
					if kindOf(ch) == "class_body" {
						c.add(itemAnon, ch, x)
						break
					}
				}
			case methodDeclKinds[k]:
				c.add(itemMethod, x, nil)
			case k == "field_declaration" || k == "constant_declaration":
				c.add(itemField, x, nil)
			}
		}
		for _, ch := range x.allKids() {
			walk(ch)
		}
	}
	walk(n)
}

// mayDeclareType reports whether Java text could contain a local or
// anonymous class: a class/interface/enum/record keyword, or "new" followed
// by "{" before the next ";" (strings, characters and comments skipped).
// It may say yes wrongly (Foo.class, new int[] {...}, lambdas in
// arguments), never no wrongly.
func mayDeclareType(s string) bool {
	afterNew := false
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case ch == '/' && i+1 < len(s) && s[i+1] == '*':
			i += 2
			for i+1 < len(s) && !(s[i] == '*' && s[i+1] == '/') {
				i++
			}
			i += 2
		case ch == '"' || ch == '\'':
			if ch == '"' && i+2 < len(s) && s[i+1] == '"' && s[i+2] == '"' {
				i += 3
				for i < len(s) && !(s[i] == '"' && i+2 < len(s) && s[i+1] == '"' && s[i+2] == '"') {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				i += 3
				continue
			}
			i++
			for i < len(s) && s[i] != ch && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case isWordByte(ch):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			switch s[i:j] {
			case "class", "interface", "enum", "record":
				return true
			case "new":
				afterNew = true
			}
			i = j
		case ch == '{':
			if afterNew {
				return true
			}
			i++
		case ch == ';':
			afterNew = false
			i++
		default:
			i++
		}
	}
	return false
}
