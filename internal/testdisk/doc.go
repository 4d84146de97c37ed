// Package testdisk gives tests a small file system of their own to fill, so that they can
// check what ktune does on a full disk: a tmpfs mounted in a temporary folder for the
// test. Mounting needs Linux and the right to mount (root, or a container that allows
// it); elsewhere the test is skipped, saying why.
package testdisk
