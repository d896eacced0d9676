package engine

import (
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
	"github.com/pursuit-ml/pursuit/asm"
)

// avx2-only names the assembly backend with its AVX-512 kernels off, by
// option and by PURSUIT_BACKEND; avx2 keeps them where the CPU has them
// (issue 30, item 14).
func TestAVX2OnlyTurnsOffAVX512(t *testing.T) {
	if ok, why := asm.Available(); !ok {
		e, err := New(WithBackend(BackendAVX2Only), env(nil))
		if err == nil || e != nil {
			t.Fatalf("avx2-only where assembly cannot run (%s): engine %v, error %v", why, e, err)
		}
		t.Skipf("the assembly backend cannot run here: %s", why)
	}
	type avx512er interface{ UsesAVX512() bool }
	for _, opts := range [][]Option{
		{WithBackend(BackendAVX2Only), env(nil)},
		{env(map[string]string{EnvBackend: "AVX2-only"})},
	} {
		e, err := New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		be, ok := e.Backend().(avx512er)
		if !ok {
			t.Fatalf("backend %T does not say whether it uses AVX-512", e.Backend())
		}
		if be.UsesAVX512() || e.BackendName() != BackendAVX2 || !strings.Contains(e.Reason(), "AVX-512 kernels off") {
			t.Errorf("avx2-only: AVX-512 %v, name %q, reason %q", be.UsesAVX512(), e.BackendName(), e.Reason())
		}
	}
	e, err := New(WithBackend(BackendAVX2), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512VL)
	if got := e.Backend().(avx512er).UsesAVX512(); got != want {
		t.Errorf("avx2 on a CPU with AVX-512 %v uses AVX-512 kernels: %v", want, got)
	}
}
