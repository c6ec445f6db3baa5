// Package target defines the one small interface every generation target
// implements. Targets never import each other: adding one touches only its
// own package and the registry in generators/registry.
package target
