//go:build linux

// This file keeps every process a browser runs in one process group that dies with
// the test binary: the browser, its driver, its X server and whatever they start.
//
// A group starts with a keeper: a shell that reads its stdin, a pipe whose other end
// only this process holds, and kills its whole group when the read ends. When the test
// binary dies, however it dies (a panic, a timeout, SIGKILL), the kernel closes the
// pipe, and the keeper kills the group. Pdeathsig cannot do this alone: it reaches the
// one process it is set on, not the processes that one started (Firefox's content
// processes, the MiniBrowser a WebKitWebDriver starts, WebKit's web processes), and it
// fires when the thread that started the process ends, not the process. Every process
// of a browser joins the keeper's group, with Pdeathsig as well, set from a thread
// that never ends.
package browsertest

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// procGroup is one browser's process group, led by its keeper.
type procGroup struct {
	keeper *exec.Cmd
	pipe   *os.File // the write end of the keeper's stdin
	pgid   int
	once   sync.Once
}

// keeperScript waits for its stdin to end, then kills its process group (itself too).
const keeperScript = `read _line; kill -KILL 0`

// newProcGroup starts a keeper in a process group of its own.
func newProcGroup() (*procGroup, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	keeper := exec.Command("/bin/sh", "-c", keeperScript)
	keeper.Stdin = r
	keeper.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = startOnLockedThread(keeper)
	r.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("browsertest: starting a process group's keeper: %w", err)
	}
	return &procGroup{keeper: keeper, pipe: w, pgid: keeper.Process.Pid}, nil
}

// prepare makes cmd start in the group, and get SIGKILL if this process ends first.
// For a command that someone else starts (chromedp starts Chromium from a thread it
// locks).
func (g *procGroup) prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = g.pgid
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// start starts cmd in the group.
func (g *procGroup) start(cmd *exec.Cmd) error {
	g.prepare(cmd)
	return startOnLockedThread(cmd)
}

// kill kills every process of the group and waits for the keeper. The caller waits
// for the processes it started. It is safe to call twice.
func (g *procGroup) kill() {
	g.once.Do(func() {
		syscall.Kill(-g.pgid, syscall.SIGKILL)
		g.pipe.Close()
		g.keeper.Wait()
	})
}

// starts carries commands to the goroutine that starts them all, on a thread that
// never ends, so that their Pdeathsig fires only when this process ends.
var (
	starts     chan func()
	startsOnce sync.Once
)

func startOnLockedThread(cmd *exec.Cmd) error {
	startsOnce.Do(func() {
		starts = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for f := range starts {
				f()
			}
		}()
	})
	done := make(chan error, 1)
	starts <- func() { done <- cmd.Start() }
	return <-done
}
