package cache

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// fakeREAPI is an in-process ActionCache and CAS that records each call's
// metadata and instance name. It serves no Capabilities service, as some
// servers do not: the client then takes the protocol's default batch
// limit (remote_grpc.go), and these tests exercise that path.
type fakeREAPI struct {
	repb.UnimplementedActionCacheServer
	repb.UnimplementedContentAddressableStorageServer

	mu        sync.Mutex
	md        []metadata.MD
	instances []string
	ac        map[string]*repb.ActionResult
	cas       map[string][]byte
}

func (f *fakeREAPI) record(ctx context.Context, instance string) {
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	f.md = append(f.md, md)
	f.instances = append(f.instances, instance)
	f.mu.Unlock()
}

func (f *fakeREAPI) GetActionResult(ctx context.Context, req *repb.GetActionResultRequest) (*repb.ActionResult, error) {
	f.record(ctx, req.InstanceName)
	f.mu.Lock()
	defer f.mu.Unlock()
	if ar, ok := f.ac[req.ActionDigest.GetHash()]; ok {
		return ar, nil
	}
	return nil, grpcstatus.Error(codes.NotFound, "no such action")
}

func (f *fakeREAPI) BatchReadBlobs(ctx context.Context, req *repb.BatchReadBlobsRequest) (*repb.BatchReadBlobsResponse, error) {
	f.record(ctx, req.InstanceName)
	f.mu.Lock()
	defer f.mu.Unlock()
	resp := &repb.BatchReadBlobsResponse{}
	for _, d := range req.Digests {
		r := &repb.BatchReadBlobsResponse_Response{Digest: d, Status: &status.Status{Code: int32(codes.NotFound)}}
		if b, ok := f.cas[d.Hash]; ok {
			r.Data, r.Status = b, &status.Status{}
		}
		resp.Responses = append(resp.Responses, r)
	}
	return resp, nil
}

// startFakeREAPI serves f on a loopback port, with TLS if cert is set.
func startFakeREAPI(t *testing.T, f *fakeREAPI, cert *tls.Certificate) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var opts []grpc.ServerOption
	if cert != nil {
		opts = append(opts, grpc.Creds(credentials.NewServerTLSFromCert(cert)))
	}
	s := grpc.NewServer(opts...)
	repb.RegisterActionCacheServer(s, f)
	repb.RegisterContentAddressableStorageServer(s, f)
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return l.Addr().String()
}

// selfSigned returns a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cache test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

func TestGRPCMetadataAndTLS(t *testing.T) {
	ctx := context.Background()
	f := &fakeREAPI{}
	addr := startFakeREAPI(t, f, nil)
	lookup := func(opt Options) Stats {
		t.Helper()
		opt.Dir = t.TempDir()
		c := openCache(t, opt)
		require.NotNil(t, c.remote)
		assert.False(t, getEntry(t, c, 1, 10).OK)
		return c.Stats()
	}

	t.Run("headers and URL credentials as metadata, the instance name", func(t *testing.T) {
		s := lookup(Options{Remote: "grpc://user:pw@" + addr + "/team/ci", RemoteHeaders: map[string]string{"X-Team": "a b"}})
		assert.Zero(t, s.RemoteErrors)
		assert.Equal(t, int64(1), s.Misses)
		f.mu.Lock()
		md, inst := f.md[len(f.md)-1], f.instances[len(f.instances)-1]
		f.mu.Unlock()
		assert.Equal(t, []string{"a b"}, md.Get("x-team"))
		assert.Equal(t, []string{"Basic " + base64.StdEncoding.EncodeToString([]byte("user:pw"))}, md.Get("authorization"))
		assert.Equal(t, "team/ci", inst)

		lookup(Options{Remote: "grpc://user:pw@" + addr, RemoteHeaders: map[string]string{"Authorization": "Bearer t"}})
		f.mu.Lock()
		md, inst = f.md[len(f.md)-1], f.instances[len(f.instances)-1]
		f.mu.Unlock()
		assert.Equal(t, []string{"Bearer t"}, md.Get("authorization"), "the header wins over URL credentials")
		assert.Equal(t, "", inst)
	})

	t.Run("tool output kept in the CAS is fetched", func(t *testing.T) {
		m := sampleManifest()
		data := m.seal(testKey(2), nil)
		var ar repb.ActionResult
		require.NoError(t, proto.Unmarshal(data, &ar))
		sum := sha256.Sum256(ar.StderrRaw)
		f.mu.Lock()
		f.cas = map[string][]byte{hex.EncodeToString(sum[:]): ar.StderrRaw}
		ar.StderrDigest = &repb.Digest{Hash: hex.EncodeToString(sum[:]), SizeBytes: int64(len(ar.StderrRaw))}
		ar.StderrRaw = nil
		f.ac = map[string]*repb.ActionResult{testKey(2).String(): &ar}
		f.mu.Unlock()
		r, err := newRemote(Options{Remote: "grpc://" + addr, Timeout: time.Second})
		require.NoError(t, err)
		defer r.close()
		var buf bytes.Buffer
		found, _, err := r.getAC(ctx, testKey(2), &buf, maxManifestSize)
		require.NoError(t, err)
		require.True(t, found)
		got, err := openManifest(buf.Bytes(), testKey(2), nil)
		require.NoError(t, err, "the MAC covers the fetched output")
		assert.Equal(t, m.Stderr, got.Stderr)

		f.mu.Lock()
		f.cas[hex.EncodeToString(sum[:])] = []byte("forged warning\n")
		f.mu.Unlock()
		_, _, err = r.getAC(ctx, testKey(2), &buf, maxManifestSize)
		assert.ErrorIs(t, err, ErrCorrupt)
	})

	t.Run("grpcs", func(t *testing.T) {
		cert, pool := selfSigned(t)
		tf := &fakeREAPI{}
		taddr := startFakeREAPI(t, tf, &cert)
		var w warnings
		s := lookup(Options{Remote: "grpcs://" + taddr + "/main", Warn: w.warn})
		assert.Equal(t, int64(1), s.RemoteErrors, "an untrusted certificate is a failure")
		assert.Contains(t, strings.Join(w.all(), "\n"), "certificate")

		saved := grpcTLS
		grpcTLS = func() *tls.Config { return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool} }
		t.Cleanup(func() { grpcTLS = saved })
		var w2 warnings
		s = lookup(Options{Remote: "grpcs://" + taddr + "/main", Warn: w2.warn})
		assert.Zero(t, s.RemoteErrors, w2.all())
		assert.Empty(t, w2.all(), "no plaintext warning")
		tf.mu.Lock()
		assert.Equal(t, []string{"main"}, tf.instances)
		tf.mu.Unlock()
	})

	t.Run("bad URLs and headers", func(t *testing.T) {
		for _, bad := range []struct {
			opt  Options
			want string
		}{
			{Options{Remote: "grpc://h:1/a//b"}, "reserved segment"},
			{Options{Remote: "grpc://h:1/x/blobs"}, `reserved segment "blobs"`},
			{Options{Remote: "grpcs://h:1/x?y=1"}, "unexpected query"},
			{Options{Remote: "grpc:h"}, "want grpc://host:port"},
			{Options{Remote: "grpc://h:1", RemoteHeaders: map[string]string{"Grpc-Timeout": "1S"}}, "reserved by gRPC"},
			{Options{Remote: "grpc://h:1", RemoteHeaders: map[string]string{"Bad Name": "x"}}, "token name"},
		} {
			var w warnings
			bad.opt.Dir, bad.opt.Warn = filepath.Join(t.TempDir(), "c"), w.warn
			c := openCache(t, bad.opt)
			assert.Nil(t, c.remote, bad.opt.Remote)
			assert.Contains(t, strings.Join(w.all(), "\n"), bad.want, bad.opt.Remote)
		}
	})
}
