// Package redact takes passwords out of what perfls shows. Store
// addresses carry them, and every message, log line and JSON field that
// names a store goes through Address (the printable address) or Error (an
// error that may quote it). Both read an address the way pgx does — a URL
// (postgres://user:password@host:port/db?key=value) or libpq's key=value
// form (host=db user=me password='s3 cret') — and, where the reading is
// uncertain, hide more rather than less: only the user, the hosts, numeric
// ports, the database and the values of settings known to hold no secret
// are shown. Other URLs (a git remote with a token) are redacted too.
package redact

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// mask stands for a hidden value.
const mask = "xxxxx"

// IsKeyValue reports whether spec reads as libpq's key=value connection
// string (host=db dbname=perfls user=me), as pgx reads it.
func IsKeyValue(spec string) bool {
	pairs, err := parseKeyValue(spec)
	return err == nil && len(pairs) > 0
}

// KeyValueError says why spec does not read as key=value settings; it
// quotes nothing of spec.
func KeyValueError(spec string) error {
	_, err := parseKeyValue(spec)
	return err
}

// Address returns spec as messages may show it: a store address (or any URL)
// without its passwords. An address whose structure is in doubt is not
// shown beyond its scheme.
func Address(spec string) string {
	return redact(spec).shown
}

// Error returns err with spec's secrets taken out of its text, for
// errors of code that was handed spec (pgx's, River's): the address itself
// is replaced by Address's form and each hidden value by xxxxx. When spec's
// structure is in doubt the text is withheld, as it may quote any part of
// it. errors.Is and errors.As still see err.
func Error(spec string, err error) error {
	if err == nil {
		return nil
	}
	r := redact(spec)
	msg := err.Error()
	if r.doubt != "" {
		return &redactedError{msg: "details withheld, as they may quote the password: " + r.doubt, err: err}
	}
	// One pass, longest first: a mask is not scrubbed again, and a secret
	// inside a longer one does not split it.
	olds := []string{spec, r.shown}
	for _, s := range r.secrets {
		olds = append(olds, s, mask)
	}
	if spec == "" {
		olds = olds[2:]
	}
	clean := strings.NewReplacer(olds...).Replace(msg)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// Wrap wraps err from what was done with the store (or queue) at
// spec: "what ADDRESS: err", with the address redacted and spec's secrets
// taken out of err.
func Wrap(what, spec string, err error) error {
	return fmt.Errorf("%s %s: %w", what, Address(spec), Error(spec, err))
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redaction is what redact made of an address.
type redaction struct {
	shown   string   // the address to show
	secrets []string // the hidden values as spec spells them and decoded, longest first
	doubt   string   // non-empty: the structure is in doubt (what to fix); more than the secrets may be hidden
}

func redact(spec string) redaction {
	var r redaction
	switch i := strings.Index(spec, "://"); {
	case spec == "":
	case i > 0 && isScheme(spec[:i]):
		r = redactURL(spec[:i+3], spec[i+3:])
	default:
		pairs, err := parseKeyValue(spec)
		switch {
		case err == nil && len(pairs) > 0:
			r = redactKeyValue(pairs)
		case strings.ContainsAny(spec, "='\\") || strings.Contains(strings.ToLower(spec), "pass") || userPassword(spec):
			// Neither form, but it may be one mistyped: a password could be anywhere.
			r = redaction{shown: "(address not shown: it does not parse, and may hold a password)",
				doubt: "write the address as postgres://user@host/db or as key=value settings (quote a value holding spaces with '…', and escape ' and \\ in it with \\)"}
		default: // a path, or a word: nothing to hide
			r.shown = spec
		}
	}
	r.secrets = slices.DeleteFunc(r.secrets, func(s string) bool { return s == "" })
	slices.SortFunc(r.secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return r
}

// userPassword reports whether s looks like user:password@host without a
// scheme (a colon before an @; git's git@host:path has it after).
func userPassword(s string) bool {
	at := strings.LastIndexByte(s, '@')
	return at >= 0 && strings.Contains(s[:at], ":")
}

func isScheme(s string) bool {
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// redactURL redacts a URL as pgx (like libpq) reads one: the user
// information ends at an @ before any /, host:port pairs are separated by
// commas, the database is the path, settings are the query. rest is what
// follows scheme ("postgres://").
func redactURL(scheme, rest string) redaction {
	var r redaction
	var b strings.Builder
	b.WriteString(scheme)
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		if strings.IndexAny(rest, "@/") != at {
			// Two @, or one after a /: a password holding @, / or ? unencoded,
			// or an @ in a setting. Where the password ends is a guess.
			return redaction{shown: scheme + "…", doubt: "in a URL, percent-encode @ / ? # in the password and the settings as %40 %2F %3F %23"}
		}
		user, pw, ok := strings.Cut(rest[:at], ":")
		b.WriteString(user)
		if ok {
			b.WriteString(":" + mask)
			r.secrets = append(r.secrets, spellings(pw)...)
		}
		b.WriteByte('@')
		rest = rest[at+1:]
	}
	hosts, tail := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		hosts, tail = rest[:i], rest[i:]
	}
	for i, h := range strings.Split(hosts, ",") {
		if i > 0 {
			b.WriteByte(',')
		}
		host, port, hasPort := splitHostPort(h)
		b.WriteString(host)
		switch {
		case !hasPort:
		case strings.Trim(port, "0123456789") == "":
			b.WriteString(":" + port)
		default: // a port that is no number may be a password missing its @
			b.WriteString(":" + mask)
			r.secrets = append(r.secrets, spellings(port)...)
		}
	}
	path, query, hasQuery := strings.Cut(tail, "?")
	b.WriteString(path)
	if hasQuery {
		b.WriteByte('?')
		for i, pair := range strings.Split(query, "&") {
			if i > 0 {
				b.WriteByte('&')
			}
			rawKey, val, ok := strings.Cut(pair, "=")
			key, err := url.QueryUnescape(rawKey)
			switch {
			case !ok:
				// No key=value: a piece of a value holding & unencoded.
				b.WriteString(mask)
				r.secrets = append(r.secrets, spellings(pair)...)
			case err == nil && shownSetting(key):
				b.WriteString(pair)
			case err == nil && secretSetting(key):
				b.WriteString(rawKey + "=" + mask)
				r.secrets = append(r.secrets, spellings(val)...)
			default:
				b.WriteString(mask + "=" + mask)
				r.secrets = append(r.secrets, spellings(rawKey)...)
				r.secrets = append(r.secrets, spellings(val)...)
			}
		}
	}
	r.shown = b.String()
	return r
}

// splitHostPort splits one of a URL's host[:port] as pgx does: a host in
// brackets (IPv6) ends at ], another at the first colon.
func splitHostPort(h string) (host, port string, ok bool) {
	i := 0
	if strings.HasPrefix(h, "[") {
		if i = strings.IndexByte(h, ']'); i < 0 {
			return h, "", false
		}
	}
	if j := strings.IndexByte(h[i:], ':'); j >= 0 {
		return h[:i+j], h[i+j+1:], true
	}
	return h, "", false
}

// spellings are the ways a hidden URL value may appear in a message: as
// written, and decoded.
func spellings(raw string) []string {
	out := []string{raw}
	if d, err := url.PathUnescape(raw); err == nil && d != raw {
		out = append(out, d)
	}
	if d, err := url.QueryUnescape(raw); err == nil && d != raw {
		out = append(out, d)
	}
	return out
}

// kvPair is one setting of a key=value connection string: raw is the
// value as written (quotes and escapes included), val as pgx reads it.
type kvPair struct{ key, raw, val string }

// parseKeyValue reads libpq's key=value connection string as pgx does:
// settings separated by white space, spaces allowed around =, a value in
// single quotes may hold spaces, and \ escapes the next character. Keys
// are letters, digits and _ (libpq's all are). Its errors quote no value.
func parseKeyValue(s string) ([]kvPair, error) {
	const space = " \t\n\r\v\f"
	var pairs []kvPair
	s = strings.TrimLeft(s, space)
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return nil, errors.New("a setting without =")
		}
		key := strings.TrimRight(s[:eq], space)
		if !isKey(key) {
			return nil, errors.New("a key other than letters, digits and _")
		}
		s = strings.TrimLeft(s[eq+1:], space)
		var end int // the end of the value as written
		if strings.HasPrefix(s, "'") {
			end = 1
			for ; end < len(s) && s[end] != '\''; end++ {
				if s[end] == '\\' {
					end++
				}
			}
			if end >= len(s) {
				return nil, errors.New("a quoted value has no closing quote")
			}
			end++
		} else {
			for ; end < len(s) && !strings.ContainsRune(space, rune(s[end])); end++ {
				if s[end] == '\\' {
					end++
				}
			}
			end = min(end, len(s))
		}
		raw := s[:end]
		pairs = append(pairs, kvPair{key: key, raw: raw, val: unescape(strings.TrimSuffix(strings.TrimPrefix(raw, "'"), "'"))})
		s = strings.TrimLeft(s[end:], space)
	}
	return pairs, nil
}

func isKey(k string) bool {
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return k != ""
}

// unescape drops each \ and keeps the character it escapes.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			if i == len(s) {
				break
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// redactKeyValue writes the settings back, each value that may be secret
// hidden and the others quoted where libpq needs it.
func redactKeyValue(pairs []kvPair) redaction {
	var r redaction
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		switch {
		case shownSetting(p.key):
			parts[i] = p.key + "=" + quoteValue(p.val)
		case secretSetting(p.key):
			parts[i] = p.key + "=" + mask
			r.secrets = append(r.secrets, p.raw, p.val)
		default:
			parts[i] = mask + "=" + mask
			r.secrets = append(r.secrets, p.key, p.raw, p.val)
		}
	}
	r.shown = strings.Join(parts, " ")
	return r
}

func quoteValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\r\v\f'\\") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// secretSetting reports whether a setting holds a secret (password,
// sslpassword): its value is hidden, its name shown.
func secretSetting(key string) bool {
	return strings.Contains(strings.ToLower(key), "password")
}

// shownSetting reports whether a setting's value may be shown: libpq's and
// pgx's settings that hold no secret. A name the reader does not know is
// hidden with its value: it may be a piece of a value written without
// quotes (password=s3 cret).
func shownSetting(key string) bool {
	switch strings.ToLower(key) {
	case "host", "hostaddr", "port", "dbname", "database", "user", "connect_timeout", "client_encoding", "options",
		"application_name", "fallback_application_name", "keepalives", "keepalives_idle", "keepalives_interval",
		"keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode", "sslnegotiation", "sslcompression",
		"sslcert", "sslkey", "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "sslcertmode", "requirepeer",
		"ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service",
		"servicefile", "target_session_attrs", "load_balance_hosts", "passfile", "require_auth", "channel_binding",
		"min_read_buffer_size", "search_path", "timezone", "statement_timeout", "default_query_exec_mode",
		"statement_cache_capacity", "description_cache_capacity", "pool_max_conns", "pool_min_conns",
		"pool_min_idle_conns", "pool_max_conn_lifetime", "pool_max_conn_lifetime_jitter", "pool_max_conn_idle_time",
		"pool_health_check_period":
		return true
	}
	return false
}
