package classpath

// AcmeJar is acmeJar for the external tests (lint_test.go, package
// classpath_test, which imports package jdk, itself importing classpath).
var AcmeJar = acmeJar
