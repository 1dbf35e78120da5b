package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/term"
)

// terminalFd returns standard input's file descriptor when it is a
// terminal.
func (a *app) terminalFd() (int, bool) {
	f, ok := a.env.Stdin.(interface{ Fd() uintptr })
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// errInterrupted ends a prompt the user left with Ctrl-C.
var errInterrupted = errors.New("interrupted")

// interruptible runs read, a read of standard input, until it returns or
// ctx ends (Ctrl-C: main's signal.NotifyContext keeps the signal from
// ending the process, and a read would go on waiting). An ended ctx wins
// over a line read meanwhile; the read left waiting is dropped with the
// process.
func interruptible(ctx context.Context, read func() (string, error)) (string, error) {
	type answer struct {
		v   string
		err error
	}
	got := make(chan answer, 1)
	go func() {
		v, err := read()
		got <- answer{v, err}
	}()
	select {
	case r := <-got:
		if ctx.Err() != nil {
			return "", errInterrupted
		}
		return r.v, r.err
	case <-ctx.Done():
		return "", errInterrupted
	}
}

// readLine reads one line of standard input without its line ending.
func (a *app) readLine() (string, error) {
	line, err := a.in.ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// promptOptional asks for a value that may be left empty (the tenant: the
// server's default then applies). Only an interrupt or a failed read is an
// error; standard input that ends is an empty answer.
func (a *app) promptOptional(ctx context.Context, label string) (string, error) {
	fmt.Fprintf(a.env.Stderr, "%s: ", label)
	v, err := interruptible(ctx, a.readLine)
	if errors.Is(err, errInterrupted) {
		fmt.Fprintln(a.env.Stderr)
		return "", err
	}
	if _, tty := a.terminalFd(); !tty {
		fmt.Fprintln(a.env.Stderr)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading %s: %w", strings.ToLower(label), err)
	}
	return strings.TrimSpace(v), nil
}

// prompt asks for a value on standard error and reads it from standard
// input. An empty answer, or none at all, takes def; without def the value
// is required.
func (a *app) prompt(ctx context.Context, label, def string) (string, error) {
	if def != "" {
		fmt.Fprintf(a.env.Stderr, "%s [%s]: ", label, def)
	} else {
		fmt.Fprintf(a.env.Stderr, "%s: ", label)
	}
	v, err := interruptible(ctx, a.readLine)
	if errors.Is(err, errInterrupted) {
		fmt.Fprintln(a.env.Stderr)
		return "", err
	}
	if _, tty := a.terminalFd(); !tty {
		fmt.Fprintln(a.env.Stderr) // the answer came from a pipe: end the prompt's line
	}
	v = strings.TrimSpace(v)
	switch {
	case v != "":
		return v, nil
	case def != "":
		return def, nil
	case errors.Is(err, io.EOF):
		return "", fmt.Errorf("%s: no answer on standard input", strings.ToLower(label))
	case err != nil:
		return "", fmt.Errorf("reading %s: %w", strings.ToLower(label), err)
	}
	return "", fmt.Errorf("%s is required", strings.ToLower(label))
}

// promptPassword asks for the password: on a terminal without echoing it,
// otherwise as the first line left on standard input.
func (a *app) promptPassword(ctx context.Context) (string, error) {
	fmt.Fprint(a.env.Stderr, "Password: ")
	var (
		pw  string
		err error
	)
	if fd, tty := a.terminalFd(); tty {
		// ReadPassword turns echo off until it returns; a read given up
		// on does not return, so the terminal is set back here.
		state, serr := term.GetState(fd)
		pw, err = interruptible(ctx, func() (string, error) {
			b, err := term.ReadPassword(fd)
			return string(b), err
		})
		if errors.Is(err, errInterrupted) && serr == nil {
			_ = term.Restore(fd, state)
		}
	} else {
		pw, err = interruptible(ctx, a.readLine)
	}
	fmt.Fprintln(a.env.Stderr)
	switch {
	case errors.Is(err, errInterrupted):
		return "", err
	case errors.Is(err, io.EOF) && pw == "":
		return "", errors.New("password: no answer on standard input")
	case err != nil:
		return "", fmt.Errorf("reading the password: %w", err)
	case pw == "":
		return "", errors.New("password is required")
	}
	return pw, nil
}
