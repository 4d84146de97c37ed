// Package tuner tunes a kernel spec on a real device end to end: the library form of
// 'ktune tune'.
package tuner
