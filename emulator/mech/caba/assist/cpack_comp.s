# cpack_comp.s - CABA's C-Pack compression assist routine (Vijaykumar et al., "A Case for
# Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4: the lanes of an
# assist warp test all words against one dictionary candidate at a time), for the
# simplified C-Pack layout of emulator/mech/common/compress_cpack.c (Chen et al., IEEE TVLSI
# 18(8), 2010): a nibble per word (bits 0-1 the code, bits 2-3 the entry), L/8 bytes; the
# dictionary, 4 B an entry; one payload byte per zzzx or mmmx word; a line that needs a
# fifth entry is kept raw.
#
#   code 00 zzzz zero, 01 zzzx zero but the low byte, 10 mmmm the entry,
#        11 mmmx the entry with its low byte replaced
#
# ABI (a kernel launched as one warp; lane = %laneid):
#   param [0]  u64  in:  the uncompressed line, global memory, 4-byte aligned, L bytes
#   param [8]  u32  L:   the line size, 64 or 128
#   param [16] u64  out: the compressed line, global memory, 4-byte aligned, room for L
#                        bytes
#   param [24] u64  res: a u32 in global memory; lane 0 writes enc | size << 16, enc 0
#                        (packed) or 0xF (raw), size the compressed bytes
# Lane i reads word i of the line; lanes with 4i >= L do nothing (and take no part in
# the votes). A packed line: lane q < L/32 writes head word q, lane L/32 + k entry k
# (aligned st.u32), then each payload word's lane its low byte (st.u8); nothing past the
# size. A raw line is copied a word a lane.
#
# The dictionary, as compress_cpack.c builds it: zero-class words (upper 3 bytes zero)
# are covered; four unrolled steps each take the first uncovered lane (lowest bit of the
# ballot of uncovered lanes) as the next entry (shfl.idx) and cover every word with its
# upper 3 bytes; a word still uncovered after four (vote.any) makes the line raw. Each
# word's code: zzzz, mmmm (the first entry equal to it), zzzx, mmmx (the first entry with
# its upper bytes), found by sel chains over the four entries. The head: nibble <<
# 4*(lane%8) ORed over groups of 8 lanes (shfl.bfly 1, 2, 4); a payload byte's place is
# its rank among the payload words (popc of the ballot below the lane). No shared memory,
# no loops.
.kernel caba_cpack_comp
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
    mov.u32 r11, 31
    shr.u32 r14, r10, 8              # the upper 3 bytes
    set.eq.u32 r15, r14, 0           # covered: zero-class words
    # --- entry 0: r20 (valid r16)
    set.eq.u32 r3, r15, 0
    vote.ballot r4, r3, 0xffffffff
    set.ne.u32 r16, r4, 0
    neg.s32 r5, r4
    and.u32 r5, r5, r4
    sub.u32 r5, r5, 1
    popc.u32 r5, r5                  # the first uncovered lane
    shfl.idx r20, rz, r10, r5, r11, 0xffffffff
    shr.u32 r3, r20, 8
    set.eq.u32 r3, r3, r14
    or.u32 r15, r15, r3
    # --- entry 1: r21 (valid r17)
    set.eq.u32 r3, r15, 0
    vote.ballot r4, r3, 0xffffffff
    set.ne.u32 r17, r4, 0
    neg.s32 r5, r4
    and.u32 r5, r5, r4
    sub.u32 r5, r5, 1
    popc.u32 r5, r5
    shfl.idx r21, rz, r10, r5, r11, 0xffffffff
    shr.u32 r3, r21, 8
    set.eq.u32 r3, r3, r14
    or.u32 r15, r15, r3
    # --- entry 2: r22 (valid r18)
    set.eq.u32 r3, r15, 0
    vote.ballot r4, r3, 0xffffffff
    set.ne.u32 r18, r4, 0
    neg.s32 r5, r4
    and.u32 r5, r5, r4
    sub.u32 r5, r5, 1
    popc.u32 r5, r5
    shfl.idx r22, rz, r10, r5, r11, 0xffffffff
    shr.u32 r3, r22, 8
    set.eq.u32 r3, r3, r14
    or.u32 r15, r15, r3
    # --- entry 3: r23 (valid r19)
    set.eq.u32 r3, r15, 0
    vote.ballot r4, r3, 0xffffffff
    set.ne.u32 r19, r4, 0
    neg.s32 r5, r4
    and.u32 r5, r5, r4
    sub.u32 r5, r5, 1
    popc.u32 r5, r5
    shfl.idx r23, rz, r10, r5, r11, 0xffffffff
    shr.u32 r3, r23, 8
    set.eq.u32 r3, r3, r14
    or.u32 r15, r15, r3
    # --- still uncovered: raw
    set.eq.u32 r3, r15, 0
    vote.any r3, r3, 0xffffffff
    brc r3, RAW, RESULT
    add.u32 r24, r16, r17
    add.u32 r24, r24, r18
    add.u32 r24, r24, r19            # r24: entries
    # --- the first entry equal to w (r25, found r26), with w's upper bytes (r27)
    mov.u32 r25, 0
    mov.u32 r26, 0
    mov.u32 r27, 0
    mov.u32 r28, 3
    set.eq.u32 r3, r23, r10
    and.u32 r3, r3, r19
    sel.u32 r25, r28, r25, r3
    or.u32 r26, r26, r3
    shr.u32 r3, r23, 8
    set.eq.u32 r3, r3, r14
    and.u32 r3, r3, r19
    sel.u32 r27, r28, r27, r3
    mov.u32 r28, 2
    set.eq.u32 r3, r22, r10
    and.u32 r3, r3, r18
    sel.u32 r25, r28, r25, r3
    or.u32 r26, r26, r3
    shr.u32 r3, r22, 8
    set.eq.u32 r3, r3, r14
    and.u32 r3, r3, r18
    sel.u32 r27, r28, r27, r3
    mov.u32 r28, 1
    set.eq.u32 r3, r21, r10
    and.u32 r3, r3, r17
    sel.u32 r25, r28, r25, r3
    or.u32 r26, r26, r3
    shr.u32 r3, r21, 8
    set.eq.u32 r3, r3, r14
    and.u32 r3, r3, r17
    sel.u32 r27, r28, r27, r3
    set.eq.u32 r3, r20, r10
    and.u32 r3, r3, r16
    sel.u32 r25, rz, r25, r3
    or.u32 r26, r26, r3
    shr.u32 r3, r20, 8
    set.eq.u32 r3, r3, r14
    and.u32 r3, r3, r16
    sel.u32 r27, rz, r27, r3
    # --- the nibble: mmmx, then zzzx, mmmm, zzzz override (r28 code, r27 entry)
    mov.u32 r28, 3
    set.eq.u32 r3, r14, 0            # zzzx
    mov.u32 r4, 1
    sel.u32 r28, r4, r28, r3
    sel.u32 r27, rz, r27, r3
    mov.u32 r4, 2                    # mmmm
    sel.u32 r28, r4, r28, r26
    sel.u32 r27, r25, r27, r26
    set.eq.u32 r3, r10, 0            # zzzz
    sel.u32 r28, rz, r28, r3
    sel.u32 r27, rz, r27, r3
    and.u32 r29, r28, 1              # r29: a payload byte
    shl.u32 r3, r27, 2
    or.u32 r30, r28, r3              # r30: the nibble
    # --- the size: L/8 + 4*entries + payload bytes
    vote.ballot r31, r29, 0xffffffff
    popc.u32 r32, r31
    shr.u32 r33, r1, 3               # head bytes
    shl.u32 r3, r24, 2
    add.u32 r33, r33, r3             # where the payload starts
    add.u32 r34, r33, r32            # r34: size
    mov.u32 r35, 0                   # r35: enc
    set.lt.u32 r3, r34, r1
    brc.not r3, RAW, RESULT          # never with four entries; compress_cpack.c's rule
    # --- head words (lanes < L/32) and entries (the next lanes)
    and.u32 r3, r0, 7
    shl.u32 r3, r3, 2
    shl.u32 r36, r30, r3
    mov.u32 r4, 1
    shfl.bfly r3, rz, r36, r4, r11, 0xffffffff
    or.u32 r36, r36, r3
    mov.u32 r4, 2
    shfl.bfly r3, rz, r36, r4, r11, 0xffffffff
    or.u32 r36, r36, r3
    mov.u32 r4, 4
    shfl.bfly r3, rz, r36, r4, r11, 0xffffffff
    or.u32 r36, r36, r3              # head word lane/8, in the lanes of group lane/8
    shl.u32 r3, r0, 3
    shfl.idx r36, rz, r36, r3, r11, 0xffffffff   # head word lane
    shr.u32 r37, r1, 5               # hw: head words
    sub.u32 r3, r0, r37              # entry lane - hw
    mov.u32 r38, r20
    set.eq.u32 r4, r3, 1
    sel.u32 r38, r21, r38, r4
    set.eq.u32 r4, r3, 2
    sel.u32 r38, r22, r38, r4
    set.eq.u32 r4, r3, 3
    sel.u32 r38, r23, r38, r4
    set.lt.u32 r4, r0, r37
    sel.u32 r38, r36, r38, r4
    add.u32 r3, r37, r24
    set.lt.u32 r3, r0, r3
    brc.not r3, PAYLOAD, PAYLOAD
    cvt.u64.u32 r6, r2
    add.u64 r6, r6, r12
    st.global.u32 [r6], r38
PAYLOAD:
    # --- the payload byte at L/8 + 4*entries + rank
    mov.u32 r3, 1
    shl.u32 r3, r3, r0
    sub.u32 r3, r3, 1
    and.u32 r3, r3, r31
    popc.u32 r3, r3
    add.u32 r3, r3, r33
    brc.not r29, RESULT, RESULT
    cvt.u64.u32 r6, r3
    add.u64 r6, r6, r12
    st.global.u8 [r6], r10
    bra RESULT
RAW:
    mov.u32 r35, 15
    mov.u32 r34, r1
    cvt.u64.u32 r6, r2
    add.u64 r6, r6, r12
    st.global.u32 [r6], r10
RESULT:
    set.ne.u32 r3, r0, 0
    brc r3, DONE, DONE
    shl.u32 r3, r34, 16
    or.u32 r3, r3, r35
    ld.param.u64 r6, [24]
    st.global.u32 [r6], r3
DONE:
    exit
