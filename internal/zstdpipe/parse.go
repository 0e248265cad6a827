package zstdpipe

import "fmt"

// Sequences entropy-decodes every frame of src without executing it and
// calls fn once per block, in order, with the block's output size and its
// sequences; offsets are resolved to distances (repeat offsets restart at
// each frame). Raw and RLE blocks, and a compressed block's trailing
// literals, are literals: the output size minus the sequences' lengths.
// limit caps the total output, as in Decode. The sequences slice is
// reused after fn returns.
//
// A compressor uses it to take the matches another encoder found (its
// literals are the input bytes themselves) and write them again with
// Encoder, next to matches of its own.
func Sequences(src []byte, limit int, fn func(size int, seqs []Seq) error) error {
	p := startParser(src, limit, 1<<30)
	var rep [3]int
	var out []Seq
	var err error
	frameOut := 0
	for b := range p.full {
		if b.err != nil {
			err = b.err
			break
		}
		if b.newFrame {
			rep = [3]int{1, 4, 8}
			frameOut = 0
		}
		out = out[:0]
		if b.kind == blkCompressed {
			op := frameOut
			for n, s := range b.seqs {
				ll := int(s.ll)
				var off int
				if ofv := int(s.off); ofv > 3 {
					off = ofv - 3
					rep = [3]int{off, rep[0], rep[1]}
				} else {
					if ll == 0 {
						ofv++
					}
					switch ofv {
					case 1:
						off = rep[0]
					case 2:
						off = rep[1]
						rep[0], rep[1] = off, rep[0]
					case 3:
						off = rep[2]
						rep = [3]int{off, rep[0], rep[1]}
					default:
						off = rep[0] - 1
						rep = [3]int{off, rep[0], rep[1]}
					}
				}
				op += ll
				if off <= 0 || off > op || off > b.window {
					err = &Error{In: b.seqAt, Msg: fmt.Sprintf("sequence %d: offset %d reaches before the frame's output or window", n, off)}
					break
				}
				op += int(s.ml)
				out = append(out, Seq{LL: s.ll, ML: s.ml, Off: uint32(off)})
			}
		}
		if err == nil {
			frameOut += b.size
			err = fn(b.size, out)
		}
		p.free <- b
		if err != nil {
			break
		}
	}
	if err != nil {
		p.abandon()
	}
	return err
}
