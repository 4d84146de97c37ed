package format

import "encoding/json"

// Sniffing the JSON formats by their top-level members: Detect lists the member names once
// for every format's SniffKeys.

// TopLevelKeys returns the member names of the top-level JSON object in data, in order,
// as far as a quick scan gets (it stops at the first irregularity, so truncated files
// still yield the keys before the damage). It skips values without decoding them, which
// keeps format sniffing cheap on files of hundreds of megabytes.
func TopLevelKeys(data []byte) []string {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil
	}
	i++
	var keys []string
	for {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != '"' {
			return keys
		}
		end := skipString(data, i)
		if end < 0 {
			return keys
		}
		var key string
		if err := json.Unmarshal(data[i:end], &key); err != nil {
			return keys
		}
		keys = append(keys, key)
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return keys
		}
		i = skipValue(data, skipSpace(data, i+1))
		if i < 0 {
			return keys
		}
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ',' {
			return keys
		}
		i++
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the offset after the string starting at data[i] == '"', or -1.
func skipString(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the offset after the value starting at i, or -1; it balances brackets
// without checking the grammar inside, which is all sniffing needs.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				j = skipString(data, j)
				if j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if j == i {
				return -1
			}
			return j
		}
		j++
	}
	return j
}

// HasKeys reports whether keys contains every name in want.
func HasKeys(keys []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, k := range keys {
			if k == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
