# fpc_decomp.s - CABA's FPC decompression assist routine (Vijaykumar et al., "A Case for
# Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4: with the prefixes
# at the head of the line and one pattern per segment, the lanes of an assist warp decode
# a segment's words in parallel), for the segmented Frequent Pattern Compression layout of
# emulator/mech/common/compress_fpc.c (Alameldeen and Wood, UW-Madison TR 1500, 2004): the 3-bit
# prefixes of the 16-byte segments packed from bit 0 (2 B for 64 B lines, 3 B for 128 B),
# then every segment's payload, words in order.
#
#   prefix 000 zero, 010 8-bit sign-extended, 011 16-bit sign-extended, 110 repeated byte,
#   111 uncompressed: 0, 1, 2, 1, 4 payload bytes a word (nibble table 0x41002100)
#
# ABI (a kernel launched as one warp; lane = %laneid):
#   param [0]  u64  in:  the compressed line, global memory, 4-byte aligned, in a buffer of
#                        at least L bytes (the line's place in memory)
#   param [8]  u32  enc: 0 packed, 0xF the line kept raw; anything else traps
#   param [12] u32  L:   the line size, 64 or 128
#   param [16] u64  out: the decompressed line, global memory, 4-byte aligned
# Lane i writes the 4-byte word [4i, 4i+4) of the line (word i%4 of segment i/4); lanes
# with 4i >= L write nothing. Reads are aligned words: a payload at an odd place is put
# together from the two words around it with prmt. The routine trusts enc and the head, as
# the hardware trusts its metadata (a prefix this form does not use decodes as zero): for a
# line the encoder wrote, every read is inside [0, L) of in (bytes past the compressed
# size may be read, never used).
#
# Segments' offsets without a serial walk: lane t of each group of eight computes the
# payload size of segment t, an inclusive scan over the group (shfl.up by 1, 2, 4) gives
# the sizes up to t, and each lane fetches its own segment's exclusive sum from lane s
# (shfl.idx). No shared memory, no loops.
.kernel caba_fpc_decomp
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
    ld.global.u32 r12, [r8]          # the head (its bits past 3*segments are not looked at)
    mov.u32 r13, 0x41002100          # payload bytes per word, a nibble per prefix
    # segment t = lane&7: its payload bytes
    and.u32 r14, r0, 7
    mul.u32 r14, r14, 3
    shr.u32 r15, r12, r14
    and.u32 r15, r15, 7
    shl.u32 r15, r15, 2
    shr.u32 r15, r13, r15
    and.u32 r15, r15, 15
    shl.u32 r15, r15, 2              # 4 words
    # inclusive scan in groups of 8 lanes (segmask 24, clamp 0)
    mov.u32 r18, 0x1800
    mov.u32 r19, 1
    mov.u32 r20, r15
    shfl.up r16, r17, r20, r19, r18, 0xffffffff
    sel.u32 r16, r16, rz, r17
    add.u32 r20, r20, r16
    mov.u32 r19, 2
    shfl.up r16, r17, r20, r19, r18, 0xffffffff
    sel.u32 r16, r16, rz, r17
    add.u32 r20, r20, r16
    mov.u32 r19, 4
    shfl.up r16, r17, r20, r19, r18, 0xffffffff
    sel.u32 r16, r16, rz, r17
    add.u32 r20, r20, r16
    sub.u32 r20, r20, r15            # exclusive: the payload before segment t
    # this lane's segment s = lane/4: where its payload starts, its prefix
    shr.u32 r21, r0, 2
    mov.u32 r18, 31
    shfl.idx r20, r17, r20, r21, r18, 0xffffffff
    mul.u32 r14, r21, 3
    shr.u32 r22, r12, r14
    and.u32 r22, r22, 7              # prefix
    shl.u32 r14, r22, 2
    shr.u32 r14, r13, r14
    and.u32 r14, r14, 15             # wb: payload bytes of a word
    # offset: head bytes (3*(L/16)+7)/8 + segment offset + (lane%4)*wb
    shr.u32 r23, r1, 4
    mul.u32 r23, r23, 3
    add.u32 r23, r23, 7
    shr.u32 r23, r23, 3
    add.u32 r23, r23, r20
    and.u32 r24, r0, 3
    mul.u32 r24, r24, r14
    add.u32 r16, r23, r24
    # the 4 bytes at r16, from the aligned word at r16&~3 and the next
    and.u32 r18, r16, 0xfffffffc
    cvt.u64.u32 r6, r18
    add.u64 r6, r6, r8
    ld.global.u32 r17, [r6]
    ld.global.u32 r18, [r6+4]
    and.u32 r19, r16, 3
    mul.u32 r19, r19, 0x1111
    add.u32 r19, r19, 0x3210
    prmt r17, r17, r18, r19
    # sign-extend from wb bytes (shift 32 - 8*wb; wb = 0 shifts everything out: zero)
    shl.u32 r14, r14, 3
    neg.s32 r14, r14
    add.u32 r14, r14, 32
    shl.u32 r11, r17, r14
    shr.s32 r11, r11, r14
    # 110: the byte four times
    and.u32 r17, r17, 0xff
    mul.u32 r17, r17, 0x01010101
    set.eq.u32 r3, r22, 6
    sel.u32 r11, r17, r11, r3
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
