// Package modelfile frames a model's serialised payload for the packages
// that save models: a magic string naming the model kind, a format version
// (uint32, little-endian), the payload length (uint64, little-endian), the
// payload itself, and the SHA-256 of the header and payload. Read refuses a
// wrong magic, a short file, a checksum mismatch and trailing bytes, so a
// damaged model file is reported instead of being half-loaded. The
// payload's encoding (JSON in this project) and the versions a reader
// accepts are the caller's.
package modelfile
