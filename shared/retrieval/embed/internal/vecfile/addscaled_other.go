//go:build !amd64 || purego || amd64.v3

package vecfile

func addScaled6(acc []float32, row string, f float32) { addScaled6Generic(acc, row, f) }
