// Package cache is an opt-in, content-addressed cache of device-link
// results.
//
// A device-link job (one target group: one tool command line over some
// input device images producing one or more output files) is described by
// a [Command], or directly through a [KeyBuilder], and reduced to a [Key]:
// the SHA-256 of the input images' contents, the command line with
// temporary paths replaced by logical names, the tool's identity and
// version and a filtered environment. [Cache.Get] restores the outputs of
// an earlier run of the same job; [Cache.Put] records them.
//
// Entries live in a local directory (Options.Dir) as a small manifest plus
// content-addressed blobs, inserted atomically (temporary file + rename)
// so that any number of link processes of one user (or of one declared
// group, Options.SharedGroup) may share the directory. [Open] refuses a
// directory that another user owns or could write, or that lies below one
// (ssh's safe_path rule), with an [*UnsafeError]: whoever can write it can
// forge entries. The directory, memos included, is trimmed to
// Options.MaxSize by least-recent use. An optional
// remote backend (Options.Remote) speaks either the Bazel HTTP remote-cache
// protocol (http:// or https://: GET/PUT /ac/<sha256> and /cas/<sha256>),
// so bazel-remote or a WebDAV-enabled nginx can share results between
// machines, or the Remote Execution API's gRPC cache services (grpc:// or
// grpcs://host:port[/instance]: ActionCache, ContentAddressableStorage,
// ByteStream), so Buildbarn, BuildBuddy, BuildGrid or NativeLink can; the
// manifest is an REAPI ActionResult message (repb.ActionResult), bound to
// its key by an HMAC that every read checks. Remote failures never fail a link: they count as misses and
// are reported through Options.Warn and [Stats]; a failing remote is
// skipped for Options.RemoteRetry. See docs/cache.md for the trust model.
//
// The package reads no environment variables or flags; the linker-wrapper
// driver maps --cache-dir and friends to [Options]. See docs/cache.md.
package cache
