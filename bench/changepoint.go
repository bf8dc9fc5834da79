package main

func changepointBench(args []string) error { return nil }
