package cache

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/genproto/googleapis/bytestream"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// grpcRemote is a client for the Remote Execution API's cache services
// (Buildbarn, BuildBuddy, BuildGrid, NativeLink, bazel-remote's gRPC port):
//
//	ActionCache.GetActionResult/UpdateActionResult    manifests, under the key
//	ContentAddressableStorage.FindMissingBlobs/
//	  BatchUpdateBlobs/BatchReadBlobs                 blobs up to the batch limit
//	ByteStream.Read/Write                             larger blobs
//	Capabilities.GetCapabilities                      the batch limit, SHA-256
//
// The key stands for the action digest: its 64 hex digits, with
// size_bytes [grpcKeySize] (no Action message is stored).
type grpcRemote struct {
	url      string // grpc[s]://host:port[/instance], without credentials
	plain    bool
	instance string
	idle     time.Duration
	md       metadata.MD
	conn     *grpc.ClientConn
	ac       repb.ActionCacheClient
	cas      repb.ContentAddressableStorageClient
	capsCli  repb.CapabilitiesClient
	bs       bytestream.ByteStreamClient

	mu       sync.Mutex
	batchMax int64 // largest blob sent or read in a batch call; 0 until known

	streamed atomic.Int64 // blobs moved through ByteStream (tests)
}

const (
	// grpcKeySize is the size_bytes of the action digest that stands for
	// a key. Not 0, which servers may treat as the empty blob.
	grpcKeySize = 32
	// grpcMaxBatch bounds batch calls whatever the server allows: 4 MiB
	// is gRPC's default message limit, and the margin covers the request
	// around the blob.
	grpcMaxBatch    = 4<<20 - grpcBatchMargin
	grpcBatchMargin = 16 << 10
	// grpcChunk is the ByteStream write chunk: the watchdog sees progress
	// at least this often.
	grpcChunk = 256 << 10
	// grpcMaxMsg is the largest message accepted from the server.
	grpcMaxMsg = 16 << 20
)

// reservedInstanceSegments may not appear in an instance name: they would
// make ByteStream resource names ambiguous (REAPI, "Instance names").
var reservedInstanceSegments = map[string]bool{
	"blobs": true, "uploads": true, "actions": true, "actionResults": true,
	"operations": true, "capabilities": true, "compressed-blobs": true,
}

// grpcTLS returns the TLS configuration of grpcs:// connections (tests
// replace it to trust their own certificate).
var grpcTLS = func() *tls.Config { return &tls.Config{MinVersion: tls.VersionTLS12} }

func newGRPCRemote(opt Options, u *url.URL) (*grpcRemote, error) {
	bad := func(why string) error { return fmt.Errorf("cache: remote %q: %s", opt.Remote, why) }
	if u.Host == "" || u.Opaque != "" {
		return nil, bad("want grpc://host:port[/instance] or grpcs://host:port[/instance]")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, bad("unexpected query or fragment")
	}
	instance := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/"), "/")
	if instance != "" {
		for _, seg := range strings.Split(instance, "/") {
			if seg == "" || seg == "." || seg == ".." || reservedInstanceSegments[seg] {
				return nil, bad(fmt.Sprintf("instance name %q: empty, dot or reserved segment %q", instance, seg))
			}
		}
	}
	host := u.Host
	if u.Port() == "" {
		port := "443"
		if u.Scheme == "grpc" {
			port = "80"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	r := &grpcRemote{plain: u.Scheme == "grpc", instance: instance, idle: opt.Timeout, md: metadata.MD{}}
	for name, v := range opt.RemoteHeaders {
		name = strings.ToLower(name)
		if strings.HasPrefix(name, "grpc-") {
			return nil, fmt.Errorf("cache: remote header %.80q: names starting with grpc- are reserved by gRPC", name)
		}
		r.md.Append(name, v)
	}
	if u.User != nil {
		// Credentials in the URL become basic auth, as for http(s)://,
		// unless an Authorization header is given.
		if len(r.md.Get("authorization")) == 0 {
			pass, _ := u.User.Password()
			r.md.Set("authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass)))
		}
		u.User = nil
	}
	r.url = strings.TrimSuffix(u.String(), "/")
	creds := insecure.NewCredentials()
	if !r.plain {
		creds = credentials.NewTLS(grpcTLS())
	}
	bo := backoff.DefaultConfig
	bo.MaxDelay = opt.Timeout
	conn, err := grpc.NewClient("passthrough:///"+host,
		grpc.WithTransportCredentials(creds),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: bo, MinConnectTimeout: opt.Timeout}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(grpcMaxMsg), grpc.MaxCallSendMsgSize(grpcMaxMsg)),
		grpc.WithUserAgent("offload-kit-cache"),
	)
	if err != nil {
		return nil, bad(err.Error())
	}
	r.conn = conn
	r.ac = repb.NewActionCacheClient(conn)
	r.cas = repb.NewContentAddressableStorageClient(conn)
	r.capsCli = repb.NewCapabilitiesClient(conn)
	r.bs = bytestream.NewByteStreamClient(conn)
	return r, nil
}

func (r *grpcRemote) where() string { return r.url }

func (r *grpcRemote) plainWarning() string {
	if !r.plain {
		return ""
	}
	return fmt.Sprintf("cache: remote %s is plaintext gRPC: anyone on the network path can read what is uploaded and answer lookups; use grpcs", r.url)
}

func (r *grpcRemote) close() { r.conn.Close() }

// call derives the context of one RPC: the watchdog, and the headers as
// gRPC metadata.
func (r *grpcRemote) call(ctx context.Context) (context.Context, *watchdog, func()) {
	ctx, wd, stop := withWatchdog(ctx, r.idle)
	return metadata.NewOutgoingContext(ctx, r.md), wd, stop
}

// rpcError names the method in a failed call's error, and reports a
// watchdog's cancellation as such.
func rpcError(ctx context.Context, method string, err error) error {
	return fmt.Errorf("%s: %w", method, cause(ctx, err))
}

func digestOf(sum [32]byte, size int64) *repb.Digest {
	return &repb.Digest{Hash: hex.EncodeToString(sum[:]), SizeBytes: size}
}

func (r *grpcRemote) keyDigest(k Key) *repb.Digest {
	return &repb.Digest{Hash: k.String(), SizeBytes: grpcKeySize}
}

// batchLimit returns the largest blob moved by batch calls, asking the
// server once (Capabilities.GetCapabilities): its max_batch_total_size_bytes
// less a margin for the request, at most grpcMaxBatch. A server that does
// not list SHA-256 among its digest functions is refused.
func (r *grpcRemote) batchLimit(ctx context.Context) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.batchMax > 0 {
		return r.batchMax, nil
	}
	cctx, _, stop := r.call(ctx)
	defer stop()
	caps, err := r.capsCli.GetCapabilities(cctx, &repb.GetCapabilitiesRequest{InstanceName: r.instance})
	limit := int64(grpcMaxBatch)
	switch {
	case status.Code(err) == codes.Unimplemented:
		// A cache without the Capabilities service: gRPC's default.
	case err != nil:
		return 0, rpcError(cctx, "GetCapabilities", err)
	default:
		cc := caps.GetCacheCapabilities()
		if fns := cc.GetDigestFunctions(); len(fns) > 0 && !sha256Listed(fns) {
			return 0, fmt.Errorf("GetCapabilities: the server's digest functions %v do not include SHA256", fns)
		}
		if m := cc.GetMaxBatchTotalSizeBytes(); m > 0 {
			limit = min(limit, m-grpcBatchMargin)
		}
	}
	r.batchMax = max(limit, 1)
	return r.batchMax, nil
}

func sha256Listed(fns []repb.DigestFunction_Value) bool {
	for _, f := range fns {
		if f == repb.DigestFunction_SHA256 {
			return true
		}
	}
	return false
}

func (r *grpcRemote) getAC(ctx context.Context, k Key, w io.Writer, limit int64) (bool, int64, error) {
	cctx, _, stop := r.call(ctx)
	ar, err := r.ac.GetActionResult(cctx, &repb.GetActionResultRequest{
		InstanceName: r.instance, ActionDigest: r.keyDigest(k),
		InlineStdout: true, InlineStderr: true,
	})
	if err != nil {
		err = rpcError(cctx, "GetActionResult", err)
	}
	stop()
	switch {
	case status.Code(err) == codes.NotFound:
		return false, 0, nil
	case err != nil:
		return false, 0, err
	}
	// A server may keep tool output in the CAS even when asked to
	// inline it: fetch it (it is covered by the entry's MAC either way).
	for _, out := range []struct {
		raw *[]byte
		d   **repb.Digest
	}{{&ar.StdoutRaw, &ar.StdoutDigest}, {&ar.StderrRaw, &ar.StderrDigest}} {
		if *out.d == nil || len(*out.raw) > 0 {
			continue
		}
		if err := r.inline(ctx, *out.d, out.raw); err != nil {
			return true, 0, err
		}
		*out.d = nil
	}
	data, err := proto.Marshal(ar)
	if err != nil {
		return true, 0, fmt.Errorf("GetActionResult: %v: %w", err, ErrCorrupt)
	}
	if int64(len(data)) > limit {
		return true, 0, fmt.Errorf("GetActionResult: %d bytes exceeds %d bytes: %w", len(data), limit, ErrCorrupt)
	}
	n, err := w.Write(data)
	return true, int64(n), err
}

// inline reads the tool output stored in the CAS as d into raw.
func (r *grpcRemote) inline(ctx context.Context, d *repb.Digest, raw *[]byte) error {
	var sum [32]byte
	if len(d.Hash) != 64 || d.SizeBytes < 0 || d.SizeBytes > maxInlineOutput {
		return fmt.Errorf("GetActionResult: tool output digest %.80q/%d: %w", d.Hash, d.SizeBytes, ErrCorrupt)
	}
	if _, err := hex.Decode(sum[:], []byte(d.Hash)); err != nil {
		return fmt.Errorf("GetActionResult: tool output digest %.80q: %w", d.Hash, ErrCorrupt)
	}
	var buf bytes.Buffer
	found, _, err := r.getBlob(ctx, sum, d.SizeBytes, &buf)
	switch {
	case err != nil:
		return err
	case !found:
		return fmt.Errorf("GetActionResult: tool output %s: not found: %w", d.Hash, ErrCorrupt)
	case sha256.Sum256(buf.Bytes()) != sum:
		return fmt.Errorf("GetActionResult: tool output %s: hash mismatch: %w", d.Hash, ErrCorrupt)
	}
	*raw = buf.Bytes()
	return nil
}

func (r *grpcRemote) putAC(ctx context.Context, k Key, data []byte) error {
	var ar repb.ActionResult
	if err := proto.Unmarshal(data, &ar); err != nil {
		return err
	}
	cctx, _, stop := r.call(ctx)
	defer stop()
	_, err := r.ac.UpdateActionResult(cctx, &repb.UpdateActionResultRequest{
		InstanceName: r.instance, ActionDigest: r.keyDigest(k), ActionResult: &ar,
	})
	if err != nil {
		return rpcError(cctx, "UpdateActionResult", err)
	}
	return nil
}

func (r *grpcRemote) hasBlob(ctx context.Context, sum [32]byte, size int64) (bool, error) {
	cctx, _, stop := r.call(ctx)
	defer stop()
	resp, err := r.cas.FindMissingBlobs(cctx, &repb.FindMissingBlobsRequest{
		InstanceName: r.instance, BlobDigests: []*repb.Digest{digestOf(sum, size)},
	})
	if err != nil {
		return false, rpcError(cctx, "FindMissingBlobs", err)
	}
	return len(resp.MissingBlobDigests) == 0, nil
}

func (r *grpcRemote) getBlob(ctx context.Context, sum [32]byte, size int64, w io.Writer) (bool, int64, error) {
	limit, err := r.batchLimit(ctx)
	if err != nil {
		return false, 0, err
	}
	if size > limit {
		return r.readStream(ctx, sum, size, w)
	}
	cctx, _, stop := r.call(ctx)
	defer stop()
	resp, err := r.cas.BatchReadBlobs(cctx, &repb.BatchReadBlobsRequest{
		InstanceName: r.instance, Digests: []*repb.Digest{digestOf(sum, size)},
	})
	if err != nil {
		return false, 0, rpcError(cctx, "BatchReadBlobs", err)
	}
	if len(resp.Responses) != 1 {
		return false, 0, fmt.Errorf("BatchReadBlobs: %d responses for one digest: %w", len(resp.Responses), ErrCorrupt)
	}
	br := resp.Responses[0]
	switch c := codes.Code(br.GetStatus().GetCode()); c {
	case codes.OK:
	case codes.NotFound:
		return false, 0, nil
	default:
		return false, 0, fmt.Errorf("BatchReadBlobs: %v: %s", c, br.GetStatus().GetMessage())
	}
	if int64(len(br.Data)) > size {
		return true, 0, fmt.Errorf("BatchReadBlobs: %d bytes, want %d: %w", len(br.Data), size, ErrCorrupt)
	}
	n, err := w.Write(br.Data)
	return true, int64(n), err
}

// blobResource is the ByteStream resource name of a blob (REAPI, "Method
// ByteStream.Read/Write"); upload names the Write form.
func (r *grpcRemote) blobResource(sum [32]byte, size int64, upload bool) string {
	var b strings.Builder
	if r.instance != "" {
		b.WriteString(r.instance + "/")
	}
	if upload {
		var id [16]byte
		rand.Read(id[:])
		id[6] = id[6]&0x0f | 0x40 // UUID version 4
		id[8] = id[8]&0x3f | 0x80
		h := hex.EncodeToString(id[:])
		fmt.Fprintf(&b, "uploads/%s-%s-%s-%s-%s/", h[:8], h[8:12], h[12:16], h[16:20], h[20:])
	}
	fmt.Fprintf(&b, "blobs/%x/%d", sum[:], size)
	return b.String()
}

// readStream reads a blob through ByteStream.Read, at most size bytes
// (more is an error); every chunk received kicks the watchdog.
func (r *grpcRemote) readStream(ctx context.Context, sum [32]byte, size int64, w io.Writer) (bool, int64, error) {
	r.streamed.Add(1)
	cctx, wd, stop := r.call(ctx)
	defer stop()
	st, err := r.bs.Read(cctx, &bytestream.ReadRequest{ResourceName: r.blobResource(sum, size, false)})
	if err != nil {
		return false, 0, rpcError(cctx, "ByteStream.Read", err)
	}
	var n int64
	for {
		msg, err := st.Recv()
		if err == io.EOF {
			return true, n, nil
		}
		if err != nil {
			if n == 0 && status.Code(err) == codes.NotFound {
				return false, 0, nil
			}
			return n > 0, n, rpcError(cctx, "ByteStream.Read", err)
		}
		wd.kick()
		if n+int64(len(msg.Data)) > size {
			return true, n, fmt.Errorf("ByteStream.Read: more than %d bytes: %w", size, ErrCorrupt)
		}
		m, err := w.Write(msg.Data)
		n += int64(m)
		if err != nil {
			return true, n, err
		}
	}
}

func (r *grpcRemote) putBlob(ctx context.Context, sum [32]byte, size int64, body io.Reader) error {
	if size == 0 {
		return nil // REAPI: the empty blob is always present
	}
	limit, err := r.batchLimit(ctx)
	if err != nil {
		return err
	}
	if size > limit {
		return r.writeStream(ctx, sum, size, body)
	}
	data, err := io.ReadAll(io.LimitReader(body, size+1))
	if err != nil {
		return err
	}
	if int64(len(data)) != size {
		return fmt.Errorf("blob %x: read %d bytes, want %d", sum[:], len(data), size)
	}
	cctx, _, stop := r.call(ctx)
	defer stop()
	resp, err := r.cas.BatchUpdateBlobs(cctx, &repb.BatchUpdateBlobsRequest{
		InstanceName: r.instance,
		Requests:     []*repb.BatchUpdateBlobsRequest_Request{{Digest: digestOf(sum, size), Data: data}},
	})
	if err != nil {
		return rpcError(cctx, "BatchUpdateBlobs", err)
	}
	for _, br := range resp.Responses {
		if c := codes.Code(br.GetStatus().GetCode()); c != codes.OK {
			return fmt.Errorf("BatchUpdateBlobs: %v: %s", c, br.GetStatus().GetMessage())
		}
	}
	return nil
}

// writeStream uploads a blob through ByteStream.Write in grpcChunk pieces;
// every chunk sent kicks the watchdog.
func (r *grpcRemote) writeStream(ctx context.Context, sum [32]byte, size int64, body io.Reader) error {
	r.streamed.Add(1)
	cctx, wd, stop := r.call(ctx)
	defer stop()
	st, err := r.bs.Write(cctx)
	if err != nil {
		return rpcError(cctx, "ByteStream.Write", err)
	}
	name := r.blobResource(sum, size, true)
	buf := make([]byte, min(size, grpcChunk))
	var off int64
	for off < size {
		n, err := io.ReadFull(body, buf[:min(int64(len(buf)), size-off)])
		if err != nil {
			st.CloseSend()
			return fmt.Errorf("blob %x: %w", sum[:], err)
		}
		req := &bytestream.WriteRequest{WriteOffset: off, Data: buf[:n], FinishWrite: off+int64(n) == size}
		if off == 0 {
			req.ResourceName = name
		}
		if err := st.Send(req); err != nil {
			if err == io.EOF {
				break // the server ended the stream: its status follows
			}
			return rpcError(cctx, "ByteStream.Write", err)
		}
		wd.kick()
		off += int64(n)
	}
	resp, err := st.CloseAndRecv()
	if err != nil {
		return rpcError(cctx, "ByteStream.Write", err)
	}
	// A server that has the blob already may end the write early,
	// committing the whole size.
	if resp.CommittedSize != size {
		return fmt.Errorf("ByteStream.Write: committed %d bytes of %d", resp.CommittedSize, size)
	}
	return nil
}
