package main

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// cliHandler writes a command's log: warnings and errors as the command's own messages
// are written ("ktune tune: warning: MESSAGE key=value ..."), so that what the default
// level shows reads like the rest of standard error, and info and debug records (asked
// for with --log-level) as slog's text, with their time and level.
type cliHandler struct {
	w      io.Writer
	mu     *sync.Mutex
	cmd    string
	level  slog.Leveler
	text   slog.Handler
	prefix string // the open groups, "a.b."
	attrs  string // the formatted attributes of WithAttrs, " k=v" each
}

func newCLIHandler(w io.Writer, cmd string, level slog.Leveler) *cliHandler {
	return &cliHandler{w: w, mu: new(sync.Mutex), cmd: cmd, level: level,
		text: slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})}
}

func (h *cliHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func (h *cliHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.text.Handle(ctx, r)
	}
	var b strings.Builder
	b.WriteString("ktune ")
	b.WriteString(h.cmd)
	if r.Level >= slog.LevelError {
		b.WriteString(": error: ")
	} else {
		b.WriteString(": warning: ")
	}
	b.WriteString(r.Message)
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.prefix, a)
		return true
	})
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *cliHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.text = h.text.WithAttrs(as)
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range as {
		appendAttr(&b, h.prefix, a)
	}
	c.attrs = b.String()
	return &c
}

func (h *cliHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.text = h.text.WithGroup(name)
	c.prefix = h.prefix + name + "."
	return &c
}

// appendAttr writes a as " key=value", a group's attributes each with the group's name
// before their keys, and a value quoted where it would not read as one word.
func appendAttr(b *strings.Builder, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		if a.Key != "" {
			prefix += a.Key + "."
		}
		for _, g := range v.Group() {
			appendAttr(b, prefix, g)
		}
		return
	}
	if a.Equal(slog.Attr{}) {
		return
	}
	b.WriteByte(' ')
	b.WriteString(prefix)
	b.WriteString(a.Key)
	b.WriteByte('=')
	s := v.String()
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '"' || r == '=' || !unicode.IsPrint(r) }) {
		s = strconv.Quote(s)
	}
	b.WriteString(s)
}
