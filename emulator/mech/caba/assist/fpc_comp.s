# fpc_comp.s - CABA's FPC compression assist routine (Vijaykumar et al., "A Case for
# Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4: each lane tests its
# word against the patterns, the lanes of a segment agree on the first pattern all of
# them match, and the payloads are written at offsets from a prefix sum), for the
# segmented Frequent Pattern Compression layout of emulator/mech/common/compress_fpc.c
# (Alameldeen and Wood, UW-Madison TR 1500, 2004): the 3-bit prefixes of the 16-byte
# segments packed from bit 0 (2 B for 64 B lines, 3 B for 128 B), then every segment's
# payload, words in order; a line that does not get smaller is kept raw.
#
#   prefix 000 zero, 010 8-bit sign-extended, 011 16-bit sign-extended, 110 repeated byte,
#   111 uncompressed: 0, 1, 2, 1, 4 payload bytes a word (nibble table 0x41002100);
#   tried in the order 000, 010, 110, 011, 111 (nibble table 0x73620)
#
# ABI (a kernel launched as one warp; lane = %laneid):
#   param [0]  u64  in:  the uncompressed line, global memory, 4-byte aligned, L bytes
#   param [8]  u32  L:   the line size, 64 or 128
#   param [16] u64  out: the compressed line, global memory, 4-byte aligned, room for L
#                        bytes
#   param [24] u64  res: a u32 in global memory; lane 0 writes enc | size << 16, enc 0
#                        (packed) or 0xF (raw), size the compressed bytes
# Lane i reads word i of the line (word i%4 of segment i/4); lanes with 4i >= L do
# nothing. A packed line is written with st.u8: lane 0 the head (3 bytes, the third
# overwritten by the payload on 64 B lines, or past the size), then every lane its
# word's payload bytes, at most 4; so out is written up to the size rounded up to 4
# bytes. A raw line is copied a word a lane. No shared memory, no loops.
#
# A segment's pattern: a lane's matches as bits in try order (bit 4, raw, always set),
# ANDed over the segment's 4 lanes (shfl.bfly 1, 2), the lowest set bit. Payload
# offsets: an inclusive scan of the lanes' payload bytes (shfl.up 1 .. 16). The head:
# pattern << 3*segment ORed over the line (shfl.bfly 4, 8, 16, in segments of L/4 lanes).
.kernel caba_fpc_comp
.param 8
.param 4
.param 8
.param 8
    s2r r0, %laneid
    ld.param.u32 r1, [8]             # L
    shl.u32 r2, r0, 2                # the lane's byte in the line: 4*lane
    set.ge.u32 r3, r2, r1
    brc r3, DONE, exit               # lanes past the line
    ld.param.u64 r8, [0]             # in
    cvt.u64.u32 r6, r2
    add.u64 r6, r6, r8
    ld.global.u32 r10, [r6]          # w: the lane's word
    ld.param.u64 r12, [16]           # out
    # the patterns w matches, in try order
    set.eq.u32 r14, r10, 0           # bit 0: 000
    add.u32 r3, r10, 0x80
    set.lt.u32 r3, r3, 0x100
    shl.u32 r3, r3, 1
    or.u32 r14, r14, r3              # bit 1: 010
    and.u32 r3, r10, 0xff
    mul.u32 r3, r3, 0x01010101
    set.eq.u32 r3, r3, r10
    shl.u32 r3, r3, 2
    or.u32 r14, r14, r3              # bit 2: 110
    add.u32 r3, r10, 0x8000
    set.lt.u32 r3, r3, 0x10000
    shl.u32 r3, r3, 3
    or.u32 r14, r14, r3              # bit 3: 011
    or.u32 r14, r14, 16              # bit 4: 111
    # ... that the whole segment matches
    mov.u32 r11, 31
    mov.u32 r4, 1
    shfl.bfly r3, rz, r14, r4, r11, 0xffffffff
    and.u32 r14, r14, r3
    mov.u32 r4, 2
    shfl.bfly r3, rz, r14, r4, r11, 0xffffffff
    and.u32 r14, r14, r3
    neg.s32 r3, r14
    and.u32 r3, r3, r14
    sub.u32 r3, r3, 1
    popc.u32 r3, r3
    shl.u32 r3, r3, 2
    mov.u32 r15, 0x73620
    shr.u32 r15, r15, r3
    and.u32 r15, r15, 15             # r15: the segment's prefix
    shl.u32 r3, r15, 2
    mov.u32 r16, 0x41002100
    shr.u32 r16, r16, r3
    and.u32 r16, r16, 15             # r16: wb, payload bytes of this word
    # inclusive scan of wb over the lanes
    mov.u32 r18, 0                   # shfl.up: clamp 0
    mov.u32 r20, r16
    mov.u32 r19, 1
    shfl.up r3, r4, r20, r19, r18, 0xffffffff
    sel.u32 r3, r3, rz, r4
    add.u32 r20, r20, r3
    mov.u32 r19, 2
    shfl.up r3, r4, r20, r19, r18, 0xffffffff
    sel.u32 r3, r3, rz, r4
    add.u32 r20, r20, r3
    mov.u32 r19, 4
    shfl.up r3, r4, r20, r19, r18, 0xffffffff
    sel.u32 r3, r3, rz, r4
    add.u32 r20, r20, r3
    mov.u32 r19, 8
    shfl.up r3, r4, r20, r19, r18, 0xffffffff
    sel.u32 r3, r3, rz, r4
    add.u32 r20, r20, r3
    mov.u32 r19, 16
    shfl.up r3, r4, r20, r19, r18, 0xffffffff
    sel.u32 r3, r3, rz, r4
    add.u32 r20, r20, r3
    # the size: head bytes (3*(L/16)+7)/8 + the last lane's sum
    shr.u32 r21, r1, 2
    sub.u32 r3, r21, 1
    shfl.idx r22, rz, r20, r3, r11, 0xffffffff
    shr.u32 r23, r1, 4
    mul.u32 r23, r23, 3
    add.u32 r23, r23, 7
    shr.u32 r23, r23, 3              # r23: head bytes
    add.u32 r22, r22, r23            # r22: size
    mov.u32 r24, 0                   # r24: enc
    set.lt.u32 r3, r22, r1
    brc.not r3, RAW, RESULT
    # the head: prefix << 3*segment, ORed over the line
    shr.u32 r3, r0, 2
    mul.u32 r3, r3, 3
    shl.u32 r25, r15, r3
    sub.u32 r3, r21, 32
    neg.s32 r3, r3
    shl.u32 r3, r3, 8
    or.u32 r26, r3, 31               # segments of L/4 lanes
    mov.u32 r4, 4
    shfl.bfly r3, rz, r25, r4, r26, 0xffffffff
    or.u32 r25, r25, r3
    mov.u32 r4, 8
    shfl.bfly r3, rz, r25, r4, r26, 0xffffffff
    or.u32 r25, r25, r3
    mov.u32 r4, 16
    shfl.bfly r3, rz, r25, r4, r26, 0xffffffff
    or.u32 r25, r25, r3
    set.ne.u32 r3, r0, 0
    brc r3, PAYLOAD, PAYLOAD
    st.global.u8 [r12], r25
    shr.u32 r3, r25, 8
    st.global.u8 [r12+1], r3
    shr.u32 r3, r25, 16
    st.global.u8 [r12+2], r3
PAYLOAD:
    # this word's payload: wb low bytes of w at head + the scan before this lane
    sub.u32 r3, r20, r16
    add.u32 r3, r3, r23
    cvt.u64.u32 r6, r3
    add.u64 r6, r6, r12
    set.gt.u32 r3, r16, 0
    brc.not r3, RESULT, RESULT
    st.global.u8 [r6], r10
    set.gt.u32 r3, r16, 1
    brc.not r3, RESULT, RESULT
    shr.u32 r4, r10, 8
    st.global.u8 [r6+1], r4
    set.gt.u32 r3, r16, 2
    brc.not r3, RESULT, RESULT
    shr.u32 r4, r10, 16
    st.global.u8 [r6+2], r4
    shr.u32 r4, r10, 24
    st.global.u8 [r6+3], r4
    bra RESULT
RAW:
    mov.u32 r24, 15
    mov.u32 r22, r1
    cvt.u64.u32 r6, r2
    add.u64 r6, r6, r12
    st.global.u32 [r6], r10
RESULT:
    set.ne.u32 r3, r0, 0
    brc r3, DONE, DONE
    shl.u32 r3, r22, 16
    or.u32 r3, r3, r24
    ld.param.u64 r6, [24]
    st.global.u32 [r6], r3
DONE:
    exit
