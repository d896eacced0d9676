package main

import (
	"flag"
	"fmt"
)

// This file holds the commands still being written; each says so.

func newDemoFlags() (*flag.FlagSet, *struct{}) {
	return flag.NewFlagSet("demo", flag.ContinueOnError), nil
}

func pending(name, summary string) *command {
	return &command{name: name, summary: summary, usage: "pursuit " + name, run: func(ev *env, args []string) error {
		return fmt.Errorf("not in this build yet")
	}}
}

func demoCommand() *command {
	return pending("demo", "train every algorithm on generated data, print a comparison, write plots")
}
