package browsertest

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
)

// wsConn is the client side of a WebSocket (RFC 6455), as much as WebDriver BiDi
// needs: text messages both ways, pings answered, fragments joined. It is written
// here rather than taken from a module because that is about a hundred lines,
// chromedp (which talks to Chromium over a pipe) brings no WebSocket, and
// browsertest must not grow the module's dependencies for Firefox alone.
type wsConn struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex // one writer at a time
}

// dialWS opens a WebSocket to a ws:// URL on the loopback interface.
func dialWS(ctx context.Context, rawURL string) (*wsConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "ws" {
		return nil, fmt.Errorf("websocket: %s: only ws:// is supported", rawURL)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	nonce := make([]byte, 16)
	rand.Read(nonce)
	key := base64.StdEncoding.EncodeToString(nonce)
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
		"\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		c.Close()
		return nil, err
	}
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("websocket: handshake with %s: %w", rawURL, err)
	}
	resp.Body.Close()
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if resp.StatusCode != http.StatusSwitchingProtocols ||
		resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		c.Close()
		return nil, fmt.Errorf("websocket: handshake with %s: %s", rawURL, resp.Status)
	}
	if ctx.Err() != nil {
		c.Close()
		return nil, ctx.Err()
	}
	return &wsConn{c: c, r: r}, nil
}

const (
	wsContinuation = 0x0
	wsText         = 0x1
	wsClose        = 0x8
	wsPing         = 0x9
)

// writeFrame sends one final frame, masked as a client must.
func (w *wsConn) writeFrame(op byte, payload []byte) error {
	hdr := make([]byte, 2, 14)
	hdr[0] = 0x80 | op
	switch n := len(payload); {
	case n < 126:
		hdr[1] = 0x80 | byte(n)
	case n < 1<<16:
		hdr[1] = 0x80 | 126
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(n))
	default:
		hdr[1] = 0x80 | 127
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	rand.Read(mask[:])
	hdr = append(hdr, mask[:]...)
	buf := append(hdr, payload...)
	for i := range payload {
		buf[len(hdr)+i] ^= mask[i%4]
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.c.Write(buf)
	return err
}

// WriteText sends msg as one text message.
func (w *wsConn) WriteText(msg []byte) error { return w.writeFrame(wsText, msg) }

// ReadMessage returns the next data message, answering pings on the way. It
// returns io.EOF when the peer closes.
func (w *wsConn) ReadMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.r, h[:]); err != nil {
			return nil, err
		}
		fin, op, n := h[0]&0x80 != 0, h[0]&0x0f, uint64(h[1]&0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(w.r, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(w.r, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if h[1]&0x80 != 0 || n > 1<<30 {
			return nil, errors.New("websocket: masked or oversized frame from the server")
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(w.r, payload); err != nil {
			return nil, err
		}
		switch op {
		case wsPing:
			if err := w.writeFrame(0xA, payload); err != nil {
				return nil, err
			}
			continue
		case wsClose:
			return nil, io.EOF
		case wsText, 0x2, wsContinuation:
			msg = append(msg, payload...)
			if fin {
				return msg, nil
			}
		}
	}
}

// Close closes the connection without the closing handshake: the browser is
// about to go.
func (w *wsConn) Close() error { return w.c.Close() }
