package zstdpipe

import "encoding/binary"

// Splicing. A compressor that writes one frame can take the blocks of
// another encoder's frame as they are, without decoding and re-encoding
// them, when that frame covers a stretch of the input on its own: its
// matches reach only inside the stretch (fine inside a bigger window),
// and its first block cannot use an earlier block's Huffman or FSE
// tables (RFC 8878 forbids it at the start of a frame). What does carry
// over is the repeat offsets: the spliced frame was encoded with 1, 4, 8
// as its initial repeat offsets, while inside the bigger frame they are
// whatever the blocks before it left. RepeatFree says whether that can
// matter; Encoder.ForgetRepeats makes the blocks written after a spliced
// frame independent of the offsets it left.

// RepeatFree reports whether the single frame at the start of frame
// decodes the same after any earlier blocks: none of its sequences uses
// a repeat offset before its own offsets have replaced the initial ones
// (each new offset pushes one of them out; three replace all). It decodes
// only as far as it needs to, usually part of the first block. A
// malformed frame is an error.
func RepeatFree(frame []byte) (bool, error) {
	p := startParser(frame, 1<<62, 1<<62)
	known := 0 // how many of the repeat offsets the frame has set
	free := true
	var err error
	frames := 0
loop:
	for b := range p.full {
		if b.err != nil {
			err = b.err
			p.free <- b
			break
		}
		if b.newFrame {
			if frames++; frames > 1 {
				p.free <- b
				err = &Error{Msg: "more than one frame"}
				break
			}
		}
		for _, s := range b.seqs {
			if ofv := s.off; ofv > 3 {
				known = min(known+1, 3)
			} else {
				// The repeat offset this value reads (RFC 8878
				// §3.1.2.5): 1..3, shifted by one when LL is 0, where
				// the fourth is the first one minus 1.
				idx := int(ofv) - 1
				if s.ll == 0 {
					idx++
				}
				if idx == 3 {
					idx = 0
				}
				if idx >= known {
					free = false
					p.free <- b
					break loop
				}
				if ofv == 3 && s.ll == 0 {
					known = min(known+1, 3) // pushes the first one minus 1
				}
				// (the others rotate the known ones among themselves)
			}
		}
		p.free <- b
		if known == 3 {
			break
		}
	}
	p.abandon()
	if err == nil && frames == 0 {
		err = &Error{Msg: "no zstd frame"}
	}
	if err != nil {
		return false, err
	}
	return free, nil
}

// AppendBlocks appends the blocks of the single frame at the start of
// frame to dst, without its header and checksum, for a bigger frame that
// continues after them: the last block's "last" flag is kept only when
// last is set. It checks only the block structure (headers and sizes);
// RepeatFree decides whether the blocks may be spliced at all.
func AppendBlocks(dst, frame []byte, last bool) ([]byte, error) {
	pos, checked, err := frameHeaderLen(frame)
	if err != nil {
		return dst, err
	}
	for {
		if len(frame)-pos < 3 {
			return dst, &Error{In: int64(pos), Msg: "truncated block header"}
		}
		bh := uint32(frame[pos]) | uint32(frame[pos+1])<<8 | uint32(frame[pos+2])<<16
		size := int(bh >> 3)
		n := size
		switch (bh >> 1) & 3 {
		case 1:
			n = 1
		case 3:
			return dst, &Error{In: int64(pos), Msg: "reserved block type"}
		}
		if n > len(frame)-pos-3 {
			return dst, &Error{In: int64(pos), Msg: "block past the end of the frame"}
		}
		end := bh&1 != 0
		if end && !last {
			bh &^= 1
		}
		dst = append(dst, byte(bh), byte(bh>>8), byte(bh>>16))
		dst = append(dst, frame[pos+3:pos+3+n]...)
		pos += 3 + n
		if end {
			if checked && len(frame)-pos < 4 {
				return dst, &Error{In: int64(pos), Msg: "truncated content checksum"}
			}
			return dst, nil
		}
	}
}

// frameHeaderLen returns the length of the frame header at the start of
// frame and whether the frame ends with a content checksum.
func frameHeaderLen(frame []byte) (int, bool, error) {
	if len(frame) < 5 || binary.LittleEndian.Uint32(frame) != frameMagic {
		return 0, false, &Error{Msg: "not a zstd frame"}
	}
	fhd := frame[4]
	n := 5
	single := fhd&0x20 != 0
	if !single {
		n++
	}
	n += [4]int{0, 1, 2, 4}[fhd&3]
	fcs := [4]int{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && single {
		fcs = 1
	}
	n += fcs
	if fhd&3 != 0 {
		return 0, false, &Error{In: 5, Msg: "frame needs a dictionary"}
	}
	if len(frame) < n {
		return 0, false, &Error{Msg: "truncated frame header"}
	}
	return n, fhd&0x04 != 0, nil
}

// ForgetRepeats makes the encoder treat the repeat offsets as unknown, as
// after blocks it did not write (AppendBlocks): it writes offsets in full
// until its own offsets have replaced the unknown ones.
func (e *Encoder) ForgetRepeats() { e.rep = [3]uint32{} }
