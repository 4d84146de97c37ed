package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// A command's warnings and errors read as its other messages ("ktune tune: warning: ..."),
// attributes after them, with their groups and quoted where they are not one word;
// info and debug records, shown with --log-level, stay slog's text with time and level.
func TestTheLogReadsAsTheCommandsMessages(t *testing.T) {
	var b bytes.Buffer
	level := new(slog.LevelVar)
	level.Set(slog.LevelWarn) // the default
	log := slog.New(newCLIHandler(&b, "tune", level))
	log.With("run", 3).WithGroup("spec").Warn("default_config is not valid", "file", "my spec.yaml", slog.Group("at", "line", 4))
	log.Error("lost", "n", 1)
	log.Info("hidden at the default level")
	want := "ktune tune: warning: default_config is not valid run=3 spec.file=\"my spec.yaml\" spec.at.line=4\n" +
		"ktune tune: error: lost n=1\n"
	if b.String() != want {
		t.Errorf("logged:\n%s\nwant:\n%s", b.String(), want)
	}
	level.Set(slog.LevelDebug)
	b.Reset()
	log.Debug("evaluation", "n", 2)
	if s := b.String(); !strings.HasPrefix(s, "time=") || !strings.Contains(s, "level=DEBUG msg=evaluation n=2") {
		t.Errorf("debug record %q, want slog's text", s)
	}
}
