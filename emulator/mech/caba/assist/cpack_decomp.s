# cpack_decomp.s - CABA's C-Pack decompression assist routine (Vijaykumar et al., "A Case for
# Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4: with the codes and
# the dictionary at the head of the line and fixed-size words, each lane decodes its word
# in parallel), for the simplified C-Pack layout of emulator/mech/common/compress_cpack.c (Chen et
# al., IEEE TVLSI 18(8), 2010): a nibble per word (bits 0-1 the code, bits 2-3 the entry),
# L/8 bytes; the dictionary, 4 B an entry; one payload byte per zzzx or mmmx word.
#
#   code 00 zzzz zero, 01 zzzx zero but the low byte, 10 mmmm the entry,
#        11 mmmx the entry with its low byte replaced
#
# ABI (a kernel launched as one warp; lane = %laneid):
#   param [0]  u64  in:  the compressed line, global memory, 4-byte aligned, in a buffer of
#                        at least L bytes (the line's place in memory)
#   param [8]  u32  enc: 0 packed, 0xF the line kept raw; anything else traps
#   param [12] u32  L:   the line size, 64 or 128
#   param [16] u64  out: the decompressed line, global memory, 4-byte aligned
# Lane i decodes word i and writes [4i, 4i+4); lanes with 4i >= L write nothing (and take
# no part in the votes). Every lane reads its nibble, a dictionary word (aligned) and a
# payload byte, all inside [0, L) of in, and keeps what its code says (bytes past the
# compressed size may be read, never used). The routine trusts enc and the head, as the
# hardware trusts its metadata.
#
# The entry count (one more than the largest entry a dictionary word names) is
# sum over k = 0..3 of vote.any(g > k), g = entry + 1 for mmmm/mmmx words, else 0; a
# word's payload byte is its rank among the payload words, popc of the ballot below it.
# No shared memory, no loops.
.kernel caba_cpack_decomp
.param 8
.param 4
.param 4
.param 8
    s2r r0, %laneid
    ld.param.u32 r1, [12]            # L
    shl.u32 r2, r0, 2                # the lane's byte in the line: 4*lane
    set.ge.u32 r3, r2, r1
    brc r3, DONE, exit               # lanes past the line
    ld.param.u64 r8, [0]             # in
    ld.param.u32 r10, [8]            # enc
    ld.param.u64 r4, [16]
    cvt.u64.u32 r6, r2
    add.u64 r4, r4, r6               # out + 4*lane
    set.eq.u32 r3, r10, 15
    brc r3, RAW, STORE
    set.ne.u32 r3, r10, 0
    brc r3, BAD, STORE
    # the nibble of word lane
    shr.u32 r12, r0, 1
    cvt.u64.u32 r6, r12
    add.u64 r6, r6, r8
    ld.global.u8 r12, [r6]
    and.u32 r13, r0, 1
    shl.u32 r13, r13, 2
    shr.u32 r12, r12, r13
    and.u32 r13, r12, 3              # code
    shr.u32 r14, r12, 2
    and.u32 r14, r14, 3              # entry
    shr.u32 r15, r13, 1              # mmmm or mmmx: from the dictionary
    and.u32 r16, r13, 1              # zzzx or mmmx: a payload byte
    # the entry count
    add.u32 r17, r14, 1
    sel.u32 r17, r17, rz, r15
    set.gt.u32 r3, r17, 0
    vote.any r18, r3, 0xffffffff
    set.gt.u32 r3, r17, 1
    vote.any r19, r3, 0xffffffff
    add.u32 r18, r18, r19
    set.gt.u32 r3, r17, 2
    vote.any r19, r3, 0xffffffff
    add.u32 r18, r18, r19
    set.gt.u32 r3, r17, 3
    vote.any r19, r3, 0xffffffff
    add.u32 r18, r18, r19
    # the dictionary word: L/8 + 4*entry (aligned)
    shr.u32 r20, r1, 3
    shl.u32 r21, r14, 2
    add.u32 r21, r21, r20
    cvt.u64.u32 r6, r21
    add.u64 r6, r6, r8
    ld.global.u32 r21, [r6]
    sel.u32 r11, r21, rz, r15
    # the payload byte: L/8 + 4*entries + rank
    vote.ballot r22, r16, 0xffffffff
    mov.u32 r23, 1
    shl.u32 r23, r23, r0
    sub.u32 r23, r23, 1
    and.u32 r22, r22, r23
    popc.u32 r22, r22
    shl.u32 r18, r18, 2
    add.u32 r22, r22, r18
    add.u32 r22, r22, r20
    cvt.u64.u32 r6, r22
    add.u64 r6, r6, r8
    ld.global.u8 r22, [r6]
    and.u32 r23, r11, 0xffffff00
    or.u32 r23, r23, r22
    sel.u32 r11, r23, r11, r16
    bra STORE
RAW:
    cvt.u64.u32 r6, r2
    add.u64 r6, r6, r8
    ld.global.u32 r11, [r6]
    bra STORE
BAD:
    trap
STORE:
    st.global.u32 [r4], r11
DONE:
    exit
