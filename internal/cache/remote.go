package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// remote is a client for the Bazel HTTP remote-cache protocol:
//
//	GET|HEAD|PUT <base>/ac/<key hex>     serialised manifest (ActionResult)
//	GET|HEAD|PUT <base>/cas/<sha256 hex> blob whose SHA-256 is the name
//
// GET answers 200 with the body or 404 for a miss; PUT answers 2xx.
type remote struct {
	base      string // without trailing slash or credentials
	user      string
	pass      string
	basicAuth bool
	headers   map[string]string
	client    *http.Client
	transport *http.Transport
}

func newRemote(opt Options) (*remote, error) {
	u, err := url.Parse(opt.Remote)
	if err != nil {
		return nil, fmt.Errorf("cache: remote: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("cache: remote %q: want an http:// or https:// URL", opt.Remote)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("cache: remote %q: unexpected query or fragment", opt.Remote)
	}
	r := &remote{headers: opt.RemoteHeaders}
	if u.User != nil {
		r.user = u.User.Username()
		r.pass, _ = u.User.Password()
		r.basicAuth = true
		u.User = nil
	}
	r.base = strings.TrimSuffix(u.String(), "/")
	// A transport of our own: no state shared with other users of
	// http.DefaultTransport, and Close can drop its idle connections.
	r.transport = http.DefaultTransport.(*http.Transport).Clone()
	r.client = &http.Client{Transport: r.transport, Timeout: opt.Timeout}
	return r, nil
}

func (r *remote) close() { r.transport.CloseIdleConnections() }

func (r *remote) newRequest(ctx context.Context, method, kind, name string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, r.base+"/"+kind+"/"+name, body)
	if err != nil {
		return nil, err
	}
	if r.basicAuth {
		req.SetBasicAuth(r.user, r.pass)
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// statusError is an unexpected HTTP status.
type statusError struct {
	method, url, status string
}

func (e *statusError) Error() string { return e.method + " " + e.url + ": " + e.status }

// get fetches kind/name into w, reading at most limit bytes (more is an
// error). found is false for a 404.
func (r *remote) get(ctx context.Context, kind, name string, w io.Writer, limit int64) (found bool, n int64, err error) {
	req, err := r.newRequest(ctx, http.MethodGet, kind, name, nil)
	if err != nil {
		return false, 0, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return false, 0, nil
	case resp.StatusCode != http.StatusOK:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return false, 0, &statusError{req.Method, req.URL.Redacted(), resp.Status}
	}
	n, err = io.Copy(w, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return true, n, fmt.Errorf("GET %s: %w", req.URL.Redacted(), err)
	}
	if n > limit {
		return true, n, fmt.Errorf("GET %s: body exceeds %d bytes: %w", req.URL.Redacted(), limit, ErrCorrupt)
	}
	return true, n, nil
}

// exists reports whether kind/name is present with the given size (HEAD
// answers 200 and a matching or absent Content-Length).
func (r *remote) exists(ctx context.Context, kind, name string, size int64) (bool, error) {
	req, err := r.newRequest(ctx, http.MethodHead, kind, name, nil)
	if err != nil {
		return false, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return resp.ContentLength < 0 || resp.ContentLength == size, nil
	case http.StatusNotFound:
		return false, nil
	}
	return false, &statusError{req.Method, req.URL.Redacted(), resp.Status}
}

// put uploads size bytes from body to kind/name.
func (r *remote) put(ctx context.Context, kind, name string, body io.Reader, size int64) error {
	req, err := r.newRequest(ctx, http.MethodPut, kind, name, body)
	if err != nil {
		return err
	}
	req.ContentLength = size
	if size == 0 {
		req.Body = http.NoBody
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := r.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &statusError{req.Method, req.URL.Redacted(), resp.Status}
	}
	return nil
}

// upload sends an entry's blobs (those the remote lacks), then its
// manifest, so a server never holds a manifest whose blobs are missing.
// Blobs this Cache found corrupt on the remote are re-sent even if present.
func (c *Cache) upload(ctx context.Context, k Key, m *manifest, data []byte) error {
	r := c.remote
	for _, f := range m.Files {
		name := hex.EncodeToString(f.Hash[:])
		if f.Size > 0 && !c.isBadRemote(f.Hash) {
			if ok, err := r.exists(ctx, casDir, name, f.Size); err == nil && ok {
				continue
			}
		}
		in, err := os.Open(c.casPath(f.Hash))
		if err != nil {
			return fmt.Errorf("blob %s: %w", name, err)
		}
		err = r.put(ctx, casDir, name, in, f.Size)
		in.Close()
		if err != nil {
			return err
		}
		c.st.uploaded.Add(f.Size)
		c.setBadRemote(f.Hash, false)
	}
	if err := r.put(ctx, acDir, k.String(), bytes.NewReader(data), int64(len(data))); err != nil {
		return err
	}
	c.st.uploaded.Add(int64(len(data)))
	return nil
}

// fetch copies the remote entry for k into the local store, verifying every
// blob's size and hash. It reports whether the entry is now local; all
// failures are counted, warned about and treated as misses.
func (c *Cache) fetch(ctx context.Context, k Key) bool {
	r := c.remote
	var buf bytes.Buffer
	found, n, err := r.get(ctx, acDir, k.String(), &buf, maxManifestSize)
	c.st.downloaded.Add(n)
	if err == nil && !found {
		return false
	}
	var m *manifest
	if err == nil {
		m, err = unmarshalManifest(buf.Bytes())
	}
	if err == nil {
		for _, f := range m.Files {
			if err = c.fetchBlob(ctx, f); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = c.writeFile(c.acPath(k), m.marshal())
	}
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			c.st.corrupt.Add(1)
		} else {
			c.st.remoteErrors.Add(1)
		}
		c.warnf("cache: remote %s: %v", k, err)
		return false
	}
	return true
}

// fetchBlob makes the blob f local, downloading it unless already present.
func (c *Cache) fetchBlob(ctx context.Context, f manifestFile) error {
	final := c.casPath(f.Hash)
	if st, err := os.Stat(final); err == nil && st.Size() == f.Size {
		return nil // verified when restored
	}
	name := hex.EncodeToString(f.Hash[:])
	tmp, err := createTemp(filepath.Join(c.root, tmpDir), "get-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	var found bool
	var n int64
	if f.Size > 0 { // REAPI: the empty blob is always present
		found, n, err = c.remote.get(ctx, casDir, name, io.MultiWriter(tmp, h), f.Size)
		c.st.downloaded.Add(n)
	} else {
		found = true
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if !found {
		c.setBadRemote(f.Hash, true)
		return fmt.Errorf("blob %s: not found: %w", name, ErrCorrupt)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	if n != f.Size || sum != f.Hash {
		c.setBadRemote(f.Hash, true)
		return fmt.Errorf("blob %s: got %d bytes with SHA-256 %x, want %d bytes: %w",
			name, n, sum, f.Size, ErrCorrupt)
	}
	return install(tmp.Name(), final)
}

// setBadRemote records (or clears) that the remote copy of a blob failed
// its check, so the next upload of that blob replaces it.
func (c *Cache) setBadRemote(sum [32]byte, bad bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bad {
		c.badRemote[sum] = true
	} else {
		delete(c.badRemote, sum)
	}
}

func (c *Cache) isBadRemote(sum [32]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.badRemote[sum]
}
