package backend_test

import (
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

// Single-threaded and two-thread runs of the standard set, e.g.
//
//	go test -run '^$' -bench 'Go1/DictProducts' -benchtime 5x ./backend
func BenchmarkGo1(b *testing.B) { backendtest.Bench(b, backend.NewGo(1)) }
func BenchmarkGo2(b *testing.B) { backendtest.Bench(b, backend.NewGo(2)) }
