//go:build linux

// This file tests that no browser outlives its test binary: a child test binary
// starts each engine's browser and a page, is killed with SIGKILL, and every process
// it started, and every process of their groups, must be gone soon after.
package browsertest_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// orphanEngineEnv names the engine that TestOrphanHelper starts, in the child test
// binary TestBrowser_DiesWithTestBinary runs.
const orphanEngineEnv = "BROWSERTEST_ORPHAN_ENGINE"

// orphanReady is the line the helper prints once its browser has shown a page, and
// orphanClosed the line it prints once Browser.Close has returned.
const (
	orphanReady  = "browsertest-orphan-ready"
	orphanClosed = "browsertest-orphan-closed"
)

// TestOrphanHelper is not a test of its own: in the child binary it starts a browser,
// opens a page, says so, closes the browser when asked and waits to be killed.
func TestOrphanHelper(t *testing.T) {
	e := os.Getenv(orphanEngineEnv)
	if e == "" {
		t.Skip("runs only as the child of TestBrowser_DiesWithTestBinary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), browsertest.DefaultTimeout)
	defer cancel()
	b, err := browsertest.StartEngine(ctx, browsertest.Engine(e))
	require.NoError(t, err)
	b.Open(t, site(t)+"/")
	fmt.Println(orphanReady)
	// A line on stdin asks for Close; the end of stdin never comes before the kill.
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err == nil {
		b.Close()
		fmt.Println(orphanClosed)
	}
	time.Sleep(time.Hour)
}

// TestBrowser_DiesWithTestBinary kills a test binary that runs a browser, as a panic,
// a timeout or a person does, and requires that nothing it started still runs; and
// that Browser.Close, in a test binary that goes on, leaves nothing running either.
func TestBrowser_DiesWithTestBinary(t *testing.T) {
	if os.Getenv(browsertest.SkipEnv) == "1" {
		t.Skip(browsertest.SkipEnv + "=1")
	}
	engines, err := browsertest.Engines()
	require.NoError(t, err)
	// The processes each engine must have started, so that the test sees a browser
	// die and not a browser that never ran.
	want := map[browsertest.Engine][]string{
		browsertest.Chromium: {"chromium"},
		browsertest.Firefox:  {"firefox-esr"},
		browsertest.WebKit:   {"WebKitWebDriver", "MiniBrowser", "Xvfb"},
	}
	for _, e := range engines {
		for _, closed := range []bool{false, true} {
			name := string(e) + "/killed"
			if closed {
				name = string(e) + "/closed"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				cmd := exec.Command(os.Args[0], "-test.run=^TestOrphanHelper$", "-test.count=1")
				// The child is killed before it can clean up: its temporary files go in a
				// folder this test removes (a short path: Chromium's socket path has a limit).
				tmp, err := os.MkdirTemp("", "bt")
				require.NoError(t, err)
				t.Cleanup(func() { os.RemoveAll(tmp) })
				cmd.Env = append(os.Environ(), orphanEngineEnv+"="+string(e), "TMPDIR="+tmp)
				// The child in a group of its own: SIGKILL reaches it alone, as when a
				// test binary dies by a panic or a timeout, and its group is not this test's.
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				stdin, err := cmd.StdinPipe()
				require.NoError(t, err)
				out, err := cmd.StdoutPipe()
				require.NoError(t, err)
				require.NoError(t, cmd.Start())
				t.Cleanup(func() {
					cmd.Process.Kill()
					cmd.Wait()
				})
				lines := make(chan string, 100)
				go func() {
					s := bufio.NewScanner(out)
					for s.Scan() {
						lines <- s.Text()
					}
					close(lines)
				}()

				awaitLine(t, lines, orphanReady)
				started := descendants(cmd.Process.Pid)
				var names []string
				for _, p := range started {
					names = append(names, p.name)
				}
				for _, name := range want[e] {
					require.Contains(t, names, name, "the child test binary started its browser")
				}
				groups := map[int]bool{}
				for _, p := range started {
					groups[p.pgid] = true
				}

				if closed {
					_, err := stdin.Write([]byte("close\n"))
					require.NoError(t, err)
					awaitLine(t, lines, orphanClosed)
					delete(groups, cmd.Process.Pid) // the child's own group: it runs on
				} else {
					require.NoError(t, cmd.Process.Kill())
					cmd.Wait()
				}

				var left []proc
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
					left = alive(started, groups)
					if len(left) == 0 || time.Now().After(deadline) {
						break
					}
				}
				for _, p := range left { // leave nothing behind, even when the test fails
					syscall.Kill(p.pid, syscall.SIGKILL)
				}
				if closed {
					require.Empty(t, left, "processes still running 10 s after Browser.Close returned")
				} else {
					require.Empty(t, left, "processes still running 10 s after their test binary was killed")
				}
			})
		}
	}
}

// awaitLine waits for the child test binary to print want.
func awaitLine(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	var seen []string
	timeout := time.After(2 * browsertest.DefaultTimeout)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the child test binary ended before printing %q:\n%s", want, strings.Join(seen, "\n"))
			}
			if l == want {
				return
			}
			seen = append(seen, l)
		case <-timeout:
			t.Fatalf("the child test binary did not print %q in time:\n%s", want, strings.Join(seen, "\n"))
		}
	}
}

// proc is a process as /proc shows it. start, its start time in clock ticks since
// boot, tells it apart from a later process that got the same pid.
type proc struct {
	pid, ppid, pgid int
	start           uint64
	name            string
	state           string
}

func (p proc) String() string {
	return fmt.Sprintf("%s (pid %d, group %d, state %s)", p.name, p.pid, p.pgid, p.state)
}

// processes reads every process from /proc; zombies are left out, as they run nothing.
func processes() []proc {
	entries, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		p := proc{pid: pid, state: f[0]}
		p.ppid, _ = strconv.Atoi(f[1])
		p.pgid, _ = strconv.Atoi(f[2])
		p.start, _ = strconv.ParseUint(f[19], 10, 64)
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil {
			p.name = filepath.Base(exe)
		} else {
			p.name = s[strings.IndexByte(s, '(')+1 : i]
		}
		out = append(out, p)
	}
	return out
}

// descendants returns every running process below pid.
func descendants(pid int) []proc {
	all := processes()
	below := map[int]bool{pid: true}
	var out []proc
	for changed := true; changed; {
		changed = false
		for _, p := range all {
			if below[p.ppid] && !below[p.pid] {
				below[p.pid] = true
				out = append(out, p)
				changed = true
			}
		}
	}
	return out
}

// alive returns what still runs of started, and any process in one of groups.
func alive(started []proc, groups map[int]bool) []proc {
	var out []proc
	for _, p := range processes() {
		same := func(q proc) bool { return q.pid == p.pid && q.start == p.start }
		if slices.ContainsFunc(started, same) || groups[p.pgid] {
			out = append(out, p)
		}
	}
	return out
}
