//go:build !unix

package main

func cpuSeconds() float64 { panic("gemm: -clock cpu needs a Unix system") }
