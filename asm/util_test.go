package asm

import "os"

func envSet(name string) bool { return os.Getenv(name) != "" }
