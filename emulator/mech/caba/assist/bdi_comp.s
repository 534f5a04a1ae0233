# bdi_comp.s - CABA's BDI compression assist routine (Vijaykumar et al., "A Case for
# Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4: the lanes of one
# assist warp each test whether their values fit an encoding, a warp-wide vote gives the
# line's answer, and the first encoding that fits is packed), for the Base-Delta-Immediate
# layout of emulator/mech/common/compress_bdi.c (Pekhimenko et al., PACT 2012): a base-select
# mask of ceil(n/8) bytes, the base (k bytes), then n deltas of d bytes; zeros as one zero
# byte, a repeated 8-byte value once, a line that fits nothing kept raw.
#
# ABI (a kernel launched as one warp; lane = %laneid):
#   param [0]  u64  in:  the uncompressed line, global memory, 4-byte aligned, L bytes
#   param [8]  u32  L:   the line size, 64 or 128
#   param [16] u64  out: the compressed line, global memory, 4-byte aligned, room for L
#                        bytes
#   param [24] u64  res: a u32 in global memory; lane 0 writes enc | size << 16, enc the
#                        BDI code 0..7 or 0xF (raw), size the compressed bytes
# Lane i reads the word [4i, 4i+4) of the line and writes the word [4i, 4i+4) of out
# when 4i < size (so out is written up to size rounded up to 4 bytes; the bytes of the
# last word past size are not defined). Lanes with 4i >= L do nothing and take no part in
# the votes. Reads and writes are aligned words; no shared memory.
#
# The choice (compress_bdi.c's: the smallest encoding that fits, the earlier in the table
# on a tie): every lane tests its value(s) against each encoding, v within a d-byte delta
# of the base (the line's first value) or of zero, and vote.all gives one bit per
# encoding, placed at the encoding's rank in size order: zeros, repeat, B8-D1, B4-D1,
# B8-D2, B4-D2, then B2-D1, B8-D4 on 64 B lines (38 < 41 B) or B8-D4, B2-D1 on 128 B lines
# (74 = 74 B, table order). Bit 8 is always set (raw); the lowest set bit's rank, through
# a nibble table, is the encoding.
#
# Packing: each lane computes its delta word D (its values minus the base or zero, by
# the mask bit) and its mask bits; ballots over "value j takes the base" give the mask.
# Then each lane builds its output word byte by byte (a loop of 4, the one loop): a mask
# byte (prmt of the ballots), a base byte (prmt of the line's first two words) or a delta
# byte, fetched with shfl.idx from the lane that holds the value.
.kernel caba_bdi_comp
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
    mov.u32 r11, 31                  # shfl clamp: the whole warp
    shfl.idx r12, rz, r10, rz, r11, 0xffffffff
    mov.u32 r3, 1
    shfl.idx r13, rz, r10, r3, r11, 0xffffffff   # r12:r13 the first 8 bytes (the base)
    # --- zeros (rank 0) and repeat (rank 1)
    set.eq.u32 r3, r10, 0
    vote.all r20, r3, 0xffffffff     # r20: the ranks that fit
    and.u32 r3, r0, 1
    sel.u32 r4, r13, r12, r3
    set.eq.u32 r3, r10, r4
    vote.all r3, r3, 0xffffffff
    shl.u32 r3, r3, 1
    or.u32 r20, r20, r3
    # --- 8-byte values: v = r14:r15 (the lane pair's), v - base = r16:r17
    and.u32 r3, r0, 0xfffffffe
    shfl.idx r14, rz, r10, r3, r11, 0xffffffff
    or.u32 r3, r0, 1
    shfl.idx r15, rz, r10, r3, r11, 0xffffffff
    sub.u64 r16, r14, r12
    add.u64 r18, r14, 0x80           # B8-D1 (rank 2)
    set.lt.u64 r3, r18, 0x100
    add.u64 r18, r16, 0x80
    set.lt.u64 r4, r18, 0x100
    or.u32 r3, r3, r4
    vote.all r3, r3, 0xffffffff
    shl.u32 r3, r3, 2
    or.u32 r20, r20, r3
    add.u64 r18, r14, 0x8000         # B8-D2 (rank 4)
    set.lt.u64 r3, r18, 0x10000
    add.u64 r18, r16, 0x8000
    set.lt.u64 r4, r18, 0x10000
    or.u32 r3, r3, r4
    vote.all r3, r3, 0xffffffff
    shl.u32 r3, r3, 4
    or.u32 r20, r20, r3
    add.u64 r18, r14, 0x80000000     # B8-D4 (rank 7 on 64 B lines, 6 on 128 B)
    set.lt.u64 r3, r18, 0x100000000
    add.u64 r18, r16, 0x80000000
    set.lt.u64 r4, r18, 0x100000000
    or.u32 r3, r3, r4
    vote.all r3, r3, 0xffffffff
    set.eq.u32 r25, r1, 128          # r25: 1 on 128 B lines
    sub.u32 r4, r25, 7
    neg.s32 r4, r4                   # 7 - r25
    shl.u32 r3, r3, r4
    or.u32 r20, r20, r3
    # --- 4-byte values: v = w, v - base = r21
    sub.u32 r21, r10, r12
    add.u32 r3, r10, 0x80            # B4-D1 (rank 3)
    set.lt.u32 r3, r3, 0x100
    add.u32 r4, r21, 0x80
    set.lt.u32 r4, r4, 0x100
    or.u32 r3, r3, r4
    vote.all r3, r3, 0xffffffff
    shl.u32 r3, r3, 3
    or.u32 r20, r20, r3
    add.u32 r3, r10, 0x8000          # B4-D2 (rank 5)
    set.lt.u32 r3, r3, 0x10000
    add.u32 r4, r21, 0x8000
    set.lt.u32 r4, r4, 0x10000
    or.u32 r3, r3, r4
    vote.all r3, r3, 0xffffffff
    shl.u32 r3, r3, 5
    or.u32 r20, r20, r3
    # --- 2-byte values: r23 (low), r24 (high), base r22; B2-D1 (rank 6 / 7)
    and.u32 r22, r12, 0xffff
    and.u32 r23, r10, 0xffff
    shr.u32 r24, r10, 16
    add.u32 r3, r23, 0x80
    and.u32 r3, r3, 0xffff
    set.lt.u32 r3, r3, 0x100
    sub.u32 r4, r23, r22
    add.u32 r4, r4, 0x80
    and.u32 r4, r4, 0xffff
    set.lt.u32 r4, r4, 0x100
    or.u32 r5, r3, r4
    add.u32 r3, r24, 0x80
    and.u32 r3, r3, 0xffff
    set.lt.u32 r3, r3, 0x100
    sub.u32 r4, r24, r22
    add.u32 r4, r4, 0x80
    and.u32 r4, r4, 0xffff
    set.lt.u32 r4, r4, 0x100
    or.u32 r3, r3, r4
    and.u32 r3, r3, r5
    vote.all r3, r3, 0xffffffff
    add.u32 r4, r25, 6
    shl.u32 r3, r3, r4
    or.u32 r20, r20, r3
    # --- the encoding: rank of the lowest set bit (bit 8: raw), through the table
    or.u32 r20, r20, 0x100
    neg.s32 r3, r20
    and.u32 r3, r3, r20
    sub.u32 r3, r3, 1
    popc.u32 r3, r3
    shl.u32 r3, r3, 2
    mov.u64 r18, 0xf47635210         # rank -> code, 64 B lines
    mov.u64 r16, 0xf74635210         # 128 B lines
    sel.u64 r18, r16, r18, r25
    shr.u64 r18, r18, r3
    and.u32 r26, r18, 15             # r26: enc
    # --- the size: mb + k + n*d, or 1, 8, L
    shl.u32 r3, r26, 2
    mov.u32 r27, 0x12233300
    shr.u32 r27, r27, r3
    and.u32 r27, r27, 15             # log2 k
    mov.u32 r28, 0x01021000
    shr.u32 r28, r28, r3
    and.u32 r28, r28, 15             # log2 d
    shr.u32 r29, r1, r27             # n: values
    shr.u32 r30, r29, 3              # mb: mask bytes
    mov.u32 r31, 1
    shl.u32 r31, r31, r27            # k
    add.u32 r32, r30, r31            # mb + k: where the deltas start
    shl.u32 r3, r29, r28
    add.u32 r33, r32, r3             # r33: size
    mov.u32 r4, 1
    set.eq.u32 r3, r26, 0
    sel.u32 r33, r4, r33, r3
    mov.u32 r4, 8
    set.eq.u32 r3, r26, 1
    sel.u32 r33, r4, r33, r3
    set.eq.u32 r3, r26, 15
    sel.u32 r33, r1, r33, r3
    mov.u32 r37, r10                 # the output word: the line's (zeros, repeat, raw)
    set.lt.u32 r3, r26, 2
    set.eq.u32 r4, r26, 15
    or.u32 r3, r3, r4
    brc r3, FINISH, FINISH
    # --- base-delta codes: this lane's delta word D (r34) and base bits ub (r35)
    set.eq.u32 r3, r27, 3
    brc r3, PK8, PKDONE
    set.eq.u32 r3, r27, 2
    brc r3, PK4, PKDONE
    # k = 2 (B2-D1): values in the low and high halves; D's bytes 0 and 2 their deltas
    add.u32 r3, r23, 0x80
    and.u32 r3, r3, 0xffff
    set.ge.u32 r3, r3, 0x100         # low value takes the base
    sel.u32 r4, r22, rz, r3
    sub.u32 r4, r23, r4
    add.u32 r5, r24, 0x80
    and.u32 r5, r5, 0xffff
    set.ge.u32 r5, r5, 0x100         # high value takes the base
    sel.u32 r21, r22, rz, r5
    sub.u32 r21, r24, r21
    prmt r34, r4, r21, 0x5410
    shl.u32 r5, r5, 1
    or.u32 r35, r3, r5
    bra PKDONE
    # k = 4 (B4-D1, B4-D2): half = 2^(8d-1)
PK4:
    mov.u32 r3, 8
    shl.u32 r3, r3, r28
    sub.u32 r3, r3, 1
    mov.u32 r4, 1
    shl.u32 r4, r4, r3
    shl.u32 r5, r4, 1
    add.u32 r3, r10, r4
    set.ge.u32 r35, r3, r5
    sel.u32 r3, r12, rz, r35
    sub.u32 r34, r10, r3
    bra PKDONE
    # k = 8 (B8-D1, B8-D2, B8-D4): the pair's value; the delta is the low word's difference
PK8:
    mov.u32 r3, 8
    shl.u32 r3, r3, r28
    sub.u32 r3, r3, 1
    mov.u64 r18, 1
    shl.u64 r18, r18, r3
    add.u64 r16, r14, r18
    shl.u64 r18, r18, 1
    set.ge.u64 r35, r16, r18
    sel.u32 r3, r12, rz, r35
    sub.u32 r34, r14, r3
PKDONE:
    # the mask: bit j of r38:r36 = value j takes the base; value j is at byte j*k, in
    # lane j*k/4, its bit (j*k/2)&1 of that lane's ub. Two ballots, lane l asking for
    # values l and l + m (m = L/4 lanes), put together as bits j and j + m
    shl.u32 r3, r0, r27
    shr.u32 r4, r3, 2
    shr.u32 r5, r3, 1
    and.u32 r5, r5, 1
    shfl.idx r4, rz, r35, r4, r11, 0xffffffff
    shr.u32 r4, r4, r5
    and.u32 r4, r4, 1
    set.lt.u32 r5, r0, r29
    and.u32 r4, r4, r5
    vote.ballot r36, r4, 0xffffffff
    shr.u32 r45, r1, 2               # m = L/4: the lanes
    add.u32 r21, r0, r45
    shl.u32 r3, r21, r27
    shr.u32 r4, r3, 2
    shr.u32 r5, r3, 1
    and.u32 r5, r5, 1
    shfl.idx r4, rz, r35, r4, r11, 0xffffffff
    shr.u32 r4, r4, r5
    and.u32 r4, r4, 1
    set.lt.u32 r5, r21, r29
    and.u32 r4, r4, r5
    vote.ballot r38, r4, 0xffffffff
    shl.u32 r3, r38, r45
    or.u32 r36, r36, r3
    sub.u32 r3, r45, 32
    neg.s32 r3, r3
    shr.u32 r38, r38, r3
    # the output word, byte t = 0..3 at p = 4*lane + t
    mov.u32 r37, 0
    mov.u32 r39, 0                   # t
    mov.u32 r40, 1
    shl.u32 r40, r40, r28
    sub.u32 r40, r40, 1              # d - 1
BYTE:
    add.u32 r41, r2, r39             # p
    and.u32 r3, r41, 7
    prmt r42, r36, r38, r3           # mask byte p (p < mb <= 8)
    sub.u32 r3, r41, r30
    and.u32 r3, r3, 7
    prmt r43, r12, r13, r3           # base byte p - mb
    sub.u32 r3, r41, r32             # q: the byte in the deltas
    shr.u32 r4, r3, r28              # value q / d
    and.u32 r5, r3, r40              # its byte q % d
    shl.u32 r4, r4, r27              # at byte (q/d)*k of the line
    and.u32 r21, r4, 3
    add.u32 r21, r21, r5
    shl.u32 r21, r21, 3
    shr.u32 r4, r4, 2
    shfl.idx r44, rz, r34, r4, r11, 0xffffffff
    shr.u32 r44, r44, r21
    set.lt.u32 r3, r41, r32
    sel.u32 r44, r43, r44, r3
    set.lt.u32 r3, r41, r30
    sel.u32 r44, r42, r44, r3
    and.u32 r44, r44, 0xff
    shl.u32 r3, r39, 3
    shl.u32 r44, r44, r3
    or.u32 r37, r37, r44
    add.u32 r39, r39, 1
    set.lt.u32 r3, r39, 4
    brc r3, BYTE, FINISH
FINISH:
    set.lt.u32 r3, r2, r33
    brc.not r3, RESULT, RESULT       # words past the compressed size
    ld.param.u64 r6, [16]
    cvt.u64.u32 r18, r2
    add.u64 r6, r6, r18
    st.global.u32 [r6], r37
RESULT:
    set.ne.u32 r3, r0, 0
    brc r3, DONE, DONE
    shl.u32 r3, r33, 16
    or.u32 r3, r3, r26
    ld.param.u64 r6, [24]
    st.global.u32 [r6], r3
DONE:
    exit
