package measure

// StoreSetting is perfls.json's "store" in the project that holds dir
// (ProjectRoot): the shared store its measurements go to, "" when it names
// none. from says where the setting was read, for messages.
func StoreSetting(dir string) (spec, from string, err error) {
	cfg, path, err := readConfig(ProjectRoot(dir))
	if err != nil || cfg == nil || cfg.Store == "" {
		return "", path, err
	}
	return cfg.Store, path + ` "store"`, nil
}

// RepositorySetting is perfls.json's "repository" in the project that
// holds dir: the URL workers fetch its commits from instead of the origin
// remote's, "archive" to always send the sources, "" when not set.
func RepositorySetting(dir string) (string, error) {
	cfg, _, err := readConfig(ProjectRoot(dir))
	if err != nil || cfg == nil {
		return "", err
	}
	return cfg.Repository, nil
}
