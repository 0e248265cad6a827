package bundler

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/release"
)

// config is OffloadBundlerConfig: defaults, then the environment, then
// the command line.
type config struct {
	ctx context.Context
	Options
	compress bool
	verbose  bool
	level    int
	version  uint16
	method   bundle.Method

	prof        release.Profile // the release this run behaves as (release.go)
	targets     []string        // IDs as the release writes them, in -targets order
	hostIndex   int             // -1 if none
	allowNoHost bool
	now         func() time.Time
}

// Run executes a parsed command line. Errors are returned for the caller
// to print as "<tool>: error: <msg>" with exit code 1; warnings and
// verbose statistics go to env.Stderr, listings to env.Stdout.
func Run(ctx context.Context, env *Env, o Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	prof, err := env.Release(ctx)
	if err != nil {
		return err
	}
	return runAs(ctx, env, o, prof)
}

// runAs is Run as the bundler of the release prof.
func runAs(ctx context.Context, env *Env, o Options, prof release.Profile) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.BundleAlign == 0 {
		o.BundleAlign = 1 // the default; the reference dies with SIGFPE on -bundle-align=0
	}
	c := &config{ctx: ctx, Options: o, level: 3, version: prof.CCOBVersion(), method: bundle.Zstd, hostIndex: -1, now: env.Now, prof: prof}
	if c.now == nil {
		var zero time.Time
		c.now = func() time.Time { return zero }
	}
	c.readEnv(env)
	if o.Compress != nil {
		c.compress = *o.Compress
	}
	if o.Verbose != nil {
		c.verbose = *o.Verbose
	}
	if o.CompressionLevel != nil {
		c.level = *o.CompressionLevel
	}
	warn := func(msg string) { fmt.Fprintf(env.Stderr, "%s: warning: %s\n", env.Tool, msg) }

	if o.InputsGiven && o.InputsDepSet {
		return errors.New("-inputs and -input cannot be used together, use only -input instead")
	}
	inputs := append(append([]string(nil), o.Inputs...), o.InputsDep...)
	if len(o.InputsDep) > 0 {
		warn("-inputs is deprecated, use -input instead")
	}
	if o.OutputsGiven && o.OutputsDepSet {
		return errors.New("-outputs and -output cannot be used together, use only -output instead")
	}
	outputs := append(append([]string(nil), o.Outputs...), o.OutputsDep...)
	if len(o.OutputsDep) > 0 {
		warn("-outputs is deprecated, use -output instead")
	}
	c.Inputs, c.Outputs = inputs, outputs

	if o.List {
		if o.Unbundle {
			return errors.New("-unbundle and -list cannot be used together")
		}
		if len(inputs) != 1 {
			return errors.New("only one input file supported for -list")
		}
		if len(outputs) > 0 {
			return errors.New("-outputs option is invalid for -list")
		}
		if len(o.Targets) > 0 {
			return errors.New("-targets option is invalid for -list")
		}
		return c.list(env, inputs[0])
	}
	if o.CheckInputArchive {
		if !o.Unbundle {
			return errors.New("-check-input-archive cannot be used while bundling")
		}
		if o.Type != "a" {
			return errors.New("-check-input-archive can only be used for unbundling archives (-type=a)")
		}
	}
	if len(outputs) == 0 {
		return errors.New("no output file specified!")
	}
	if !o.TargetsGiven {
		return errors.New("for the --targets option: must be specified at least once!")
	}
	if o.Unbundle {
		if len(inputs) != 1 {
			return errors.New("only one input file supported in unbundling mode")
		}
		if len(outputs) != len(o.Targets) {
			return errors.New("number of output files and targets should match in unbundling mode")
		}
	} else {
		if o.Type == "a" {
			return errors.New("Archive files are only supported for unbundling")
		}
		if len(outputs) != 1 {
			return errors.New("only one output file supported in bundling mode")
		}
		if len(inputs) != len(o.Targets) {
			return errors.New("number of input files and targets should match in bundling mode")
		}
	}
	if err := c.checkTargets(); err != nil {
		return err
	}
	switch {
	case o.Unbundle && o.Type == "a":
		return c.unbundleArchive(env)
	case o.Unbundle:
		return c.unbundle(env)
	}
	return c.bundle(env)
}

func (c *config) readEnv(env *Env) {
	if v, ok := env.Lookup("OFFLOAD_BUNDLER_IGNORE_ENV_VAR"); ok && v == "1" {
		return
	}
	if v, ok := env.Lookup("OFFLOAD_BUNDLER_VERBOSE"); ok && c.prof.BundlerVerbose() {
		c.verbose = v == "1"
	}
	if v, ok := env.Lookup("OFFLOAD_BUNDLER_COMPRESS"); ok && c.prof.BundlerCompression() {
		c.compress = v == "1"
	}
	if v, ok := env.Lookup("OFFLOAD_BUNDLER_COMPRESSION_LEVEL"); ok && c.prof.BundlerCompressionLevel() {
		if n, ok := llvmAtoi(v, 32); ok {
			c.level = int(n)
		} else {
			fmt.Fprintf(env.Stderr, "Warning: Invalid value for OFFLOAD_BUNDLER_COMPRESSION_LEVEL: %s. Ignoring it.\n", v)
		}
	}
	if v, ok := env.Lookup("COMPRESSED_BUNDLE_FORMAT_VERSION"); ok && c.prof.CCOBVersionEnv() {
		n, err := strconv.ParseUint(v, 10, 16)
		switch {
		case err != nil:
			fmt.Fprintf(env.Stderr, "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: %s. Using default version %d.\n", v, c.version)
		case n >= 2 && n <= 3:
			c.version = uint16(n)
		default:
			fmt.Fprintf(env.Stderr, "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: %s. Valid values are 2 or 3. Using default version %d.\n", v, c.version)
		}
	}
}

// llvmAtoi is StringRef::getAsInteger(10, int): an optional '-', decimal
// digits only, and the value must fit.
func llvmAtoi(s string, bits int) (int64, bool) {
	if s == "" || strings.HasPrefix(s, "+") {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, bits)
	return n, err == nil
}

// checkTargets validates -targets as the reference's main does and
// records the normalised IDs.
func (c *config) checkTargets() error {
	seen := map[string]bool{}
	hostNum := 0
	hipOnly := true
	groups := map[string][]string{}
	var order []string
	for i, t := range c.Targets {
		if !c.checkID(t) {
			return errors.New(bundle.IDFormatMessage)
		}
		if seen[t] {
			return errors.New("Duplicate targets are not allowed")
		}
		seen[t] = true
		ti, _ := c.parseID(t)
		kindOK, tripleOK := ti.KindValid(), ti.Triple.Arch != ""
		c.targets = append(c.targets, bundle.IDAs(t, ti, c.prof.BundleIDs()))
		if !kindOK || !tripleOK {
			msg := "invalid target '" + t + "'"
			if !kindOK {
				msg += ", unknown offloading kind '" + ti.Kind + "'"
			}
			if !tripleOK {
				msg += ", unknown target triple '" + ti.Triple.String() + "'"
			}
			return errors.New(msg)
		}
		key := ti.Kind + "-" + ti.Triple.String()
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], ti.TargetID)
		if ti.IsHost() {
			hostNum++
			c.hostIndex = i
		}
		if ti.Kind != "hip" && ti.Kind != "hipv4" {
			hipOnly = false
		}
	}
	sort.Strings(order)
	for _, key := range order {
		if a, b, ok := triple.ConflictingTargetIDs(groups[key]); ok {
			return fmt.Errorf("Cannot bundle inputs with conflicting targets: '%s-%s' and '%s-%s'", key, a, key, b)
		}
	}
	c.allowNoHost = hipOnly
	if (c.Unbundle && hostNum > 1) || (!c.Unbundle && hostNum != 1 && !c.allowNoHost) {
		return fmt.Errorf("expecting exactly one host target but got %d", hostNum)
	}
	return nil
}

// handlerKind is the reference's FileHandler choice.
type handlerKind int

const (
	binaryHandler handlerKind = iota
	textHandler
	objectHandler
)

func (c *config) handlerFor(first []byte) (handlerKind, string, error) {
	if cm, ok := bundle.CommentFor(c.Type); ok {
		return textHandler, cm, nil
	}
	switch c.Type {
	case "bc", "gch", "ast":
		return binaryHandler, "", nil
	case "o", "a":
		if isObject(first) {
			return objectHandler, "", nil
		}
		return binaryHandler, "", nil
	}
	return 0, "", fmt.Errorf("'%s': invalid file type specified", c.Type)
}

// isObject approximates llvm::object::createBinary succeeding with an
// ObjectFile: an ELF or COFF object elfembed can parse, or Mach-O. A COFF
// short import member (format.KindCOFFImport) is a COFFImportFile there,
// not an ObjectFile, so it gets the binary handler and holds no bundle.
func isObject(b []byte) bool {
	switch format.Identify(b) {
	case format.KindELF, format.KindCOFF:
		_, err := elfembed.Parse(b)
		return err == nil
	case format.KindMachO:
		return true
	}
	return false
}

const sectionPrefix = "__CLANG_OFFLOAD_BUNDLE__"
