package profile

import "sort"

// Node is one method in a call tree: Self counts the samples (or weight)
// whose stacks end in it, Total those that pass through it. Children are
// by descending Total.
type Node struct {
	Method   string // perfls method name; "" for the root
	Self     int64
	Total    int64
	Lines    map[int]int64 // Total by the line this method was at
	Children []*Node
}

// CallTree merges the stacks of one kind (KindCPU for time) into a tree
// rooted at the measured method (every stack that passes through it, from
// its outermost frame); with a zero Target, rooted above the outermost
// frames. Inlined frames are frames like any other.
func (p *Profile) CallTree(kind string) *Node {
	root := &Node{Lines: map[int]int64{}}
	index := map[*Node]map[string]*Node{}
	for i, st := range p.s.Stacks {
		if st.Kind != kind || len(st.Frames) == 0 {
			continue
		}
		from := len(st.Frames) - 1
		if !p.target.IsZero() {
			if p.views[i].target < 0 {
				continue
			}
			from = p.views[i].target
		}
		w := st.Weight
		root.Total += w
		n := root
		for pos := from; pos >= 0; pos-- {
			f := p.s.Frames[st.Frames[pos]]
			name := p.s.Methods[f.Method].MethodName()
			if index[n] == nil {
				index[n] = map[string]*Node{}
			}
			c := index[n][name]
			if c == nil {
				c = &Node{Method: name, Lines: map[int]int64{}}
				index[n][name] = c
				n.Children = append(n.Children, c)
			}
			c.Total += w
			c.Lines[f.Line] += w
			n = c
		}
		n.Self += w
	}
	var order func(n *Node)
	order = func(n *Node) {
		sort.SliceStable(n.Children, func(i, j int) bool { return n.Children[i].Total > n.Children[j].Total })
		for _, c := range n.Children {
			order(c)
		}
	}
	order(root)
	if !p.target.IsZero() && len(root.Children) == 1 {
		return root.Children[0]
	}
	return root
}
