//go:build !linux

// This file is the process group of procgroup_linux.go where Linux's is not there:
// processes start as they are, and a browser whose test binary dies may outlive it.
// The project's tests run on Linux; this lets the package build elsewhere.
package browsertest

import "os/exec"

type procGroup struct{}

func newProcGroup() (*procGroup, error) { return &procGroup{}, nil }

func (g *procGroup) prepare(*exec.Cmd) {}

func (g *procGroup) start(cmd *exec.Cmd) error { return cmd.Start() }

func (g *procGroup) kill() {}
