// Package f32 holds the small float32 vector helpers shared by the CPU
// backends and the algorithm packages, so that each exists once.
package f32
