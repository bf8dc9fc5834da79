// Package cache is perfls's store: one SQLite database (perfls.db in the
// cache directory, WAL mode, shared by every perfls process of the user)
// holding the raw per-fork samples of every measurement with its
// environment, keyed by method, workload, arguments, the fingerprint of the
// code they reach (fingerprint.go), the JVM, the harness and the machine;
// the latest verdicts of every annotated method, which editors show; and the
// bounds oracle's models, runs and results. Dir names the cache directory;
// the engine opens the store once (Open: the SQLite file, or a team's
// shared PostgreSQL database, postgres.go and dialect.go) and hands it to
// whoever needs it.
package cache
