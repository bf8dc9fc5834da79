import re, sys, html
# Renders a tmux capture (capture-pane -e) as HTML, cell for cell: only SGR
# colours and attributes are interpreted; the text is what the terminal held.
src = open(sys.argv[1], encoding='utf-8').read()
FG, BG = '#d0d0d0', '#121212'
base16 = ['#000000','#cd0000','#00cd00','#cdcd00','#0000ee','#cd00cd','#00cdcd','#e5e5e5',
          '#7f7f7f','#ff0000','#00ff00','#ffff00','#5c5cff','#ff00ff','#00ffff','#ffffff']
def c256(n):
    if n < 16: return base16[n]
    if n < 232:
        n -= 16; r, g, b = n // 36, (n // 6) % 6, n % 6
        f = lambda v: 0 if v == 0 else 55 + 40 * v
        return '#%02x%02x%02x' % (f(r), f(g), f(b))
    v = 8 + 10 * (n - 232); return '#%02x%02x%02x' % (v, v, v)
st = dict(fg=None, bg=None, bold=False, ital=False, ul=False, rev=False)
out = []
def span(text):
    fg, bg = st['fg'] or FG, st['bg'] or BG
    if st['rev']: fg, bg = bg, fg
    css = 'color:%s;background:%s;' % (fg, bg)
    if st['bold']: css += 'font-weight:bold;'
    if st['ital']: css += 'font-style:italic;'
    if st['ul']: css += 'text-decoration:underline;'
    out.append('<span style="%s">%s</span>' % (css, html.escape(text)))
pos = 0
for m in re.finditer(r'\x1b\[([0-9;:]*)m', src):
    if m.start() > pos: span(src[pos:m.start()])
    pos = m.end()
    codes = [c for c in re.split('[;]', m.group(1))] or ['0']
    i = 0
    while i < len(codes):
        c = codes[i].split(':')[0]; c = int(c) if c else 0
        if c == 0: st.update(fg=None, bg=None, bold=False, ital=False, ul=False, rev=False)
        elif c == 1: st['bold'] = True
        elif c == 3: st['ital'] = True
        elif c == 4: st['ul'] = True
        elif c == 7: st['rev'] = True
        elif c == 22: st['bold'] = False
        elif c == 23: st['ital'] = False
        elif c == 24: st['ul'] = False
        elif c == 27: st['rev'] = False
        elif 30 <= c <= 37: st['fg'] = base16[c - 30]
        elif 90 <= c <= 97: st['fg'] = base16[c - 90 + 8]
        elif 40 <= c <= 47: st['bg'] = base16[c - 40]
        elif 100 <= c <= 107: st['bg'] = base16[c - 100 + 8]
        elif c == 39: st['fg'] = None
        elif c == 49: st['bg'] = None
        elif c in (38, 48):
            key = 'fg' if c == 38 else 'bg'
            if i + 1 < len(codes) and codes[i + 1] == '5':
                st[key] = c256(int(codes[i + 2])); i += 2
            elif i + 1 < len(codes) and codes[i + 1] == '2':
                st[key] = '#%02x%02x%02x' % tuple(int(x) for x in codes[i + 2:i + 5]); i += 4
        i += 1
if pos < len(src): span(src[pos:])
print('<!doctype html><meta charset="utf-8"><style>body{margin:0;background:%s}pre{margin:0;padding:8px;font:13px/1.25 "DejaVu Sans Mono",monospace;color:%s}</style><pre>%s</pre>' % (BG, FG, ''.join(out)))
