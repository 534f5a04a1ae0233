# bdi_decomp.s - CABA's BDI decompression assist routine (Vijaykumar et al., "A Case for
# Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4: one assist warp
# decompresses one line, each lane a part of it, with a few vector instructions), for the
# Base-Delta-Immediate layout of emulator/mech/common/compress_bdi.c (Pekhimenko et al., PACT 2012):
# a base-select mask of ceil(n/8) bytes, the base (k bytes), then n deltas of d bytes.
#
# ABI (a kernel launched as one warp; lane = %laneid):
#   param [0]  u64  in:  the compressed line, global memory, 4-byte aligned, in a buffer of
#                        at least L bytes (the line's place in memory)
#   param [8]  u32  enc: the BDI code 0..7, or 0xF for a line kept raw; anything else traps
#   param [12] u32  L:   the line size, 64 or 128
#   param [16] u64  out: the decompressed line, global memory, 4-byte aligned
# Lane i writes the 4-byte word [4i, 4i+4) of the line; lanes with 4i >= L write nothing.
# With 8-byte values lane i writes half i%2 of value i/2; with 2-byte values values 2i and
# 2i+1. Reads are aligned words or single bytes: a field at an odd place is put together
# from the two words around it with prmt. The routine trusts enc and the head, as the
# hardware trusts its metadata: for a line the encoder wrote, every read is inside [0, L)
# of in (bytes past the compressed size may be read, never used). No shared memory, no
# loops: every lane decodes its own word from the head, the base and its delta.
#
# The base-delta codes k = 8, 4, 2 and d = 1, 2, 4 come from two nibble tables indexed by
# enc (log2 k: 0x12233300, log2 d: 0x01021000), so one straight path computes, for any of
# them, value i = 4*lane / k, mask bytes mb = (L/k)/8, delta offset mb + k + i*d; only
# the final add differs with k.
.kernel caba_bdi_decomp
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
    mov.u32 r11, 0                   # the word (zeros: stays 0)
    set.eq.u32 r3, r10, 15
    brc r3, RAW, STORE
    set.eq.u32 r3, r10, 0
    brc r3, STORE, STORE
    set.eq.u32 r3, r10, 1
    brc r3, REPEAT, STORE
    set.gt.u32 r3, r10, 7
    brc r3, BAD, STORE
    # --- base-delta codes: shape from the tables
    shl.u32 r3, r10, 2
    mov.u32 r12, 0x12233300
    shr.u32 r12, r12, r3
    and.u32 r12, r12, 15             # log2 k
    mov.u32 r13, 0x01021000
    shr.u32 r13, r13, r3
    and.u32 r13, r13, 15             # log2 d
    shr.u32 r14, r2, r12             # i: the (first) value of this lane
    shr.u32 r15, r1, r12
    shr.u32 r15, r15, 3              # mb: mask bytes, (L/k)/8
    shl.u32 r16, r14, r13
    add.u32 r16, r16, r15
    mov.u32 r3, 1
    shl.u32 r3, r3, r12
    add.u32 r16, r16, r3             # delta offset mb + k + i*d
    # the 4 bytes at r16, from the aligned word at r16&~3 and the next
    and.u32 r18, r16, 0xfffffffc
    cvt.u64.u32 r6, r18
    add.u64 r6, r6, r8
    ld.global.u32 r17, [r6]
    ld.global.u32 r18, [r6+4]
    and.u32 r19, r16, 3
    mul.u32 r19, r19, 0x1111
    add.u32 r19, r19, 0x3210
    prmt r17, r17, r18, r19          # delta bytes in the low d bytes
    # the base: 8 bytes at mb (words mb&~3 .. +8 are inside the line)
    and.u32 r18, r15, 0xfffffffc
    cvt.u64.u32 r6, r18
    add.u64 r6, r6, r8
    ld.global.u32 r20, [r6]
    ld.global.u32 r21, [r6+4]
    ld.global.u32 r22, [r6+8]
    and.u32 r19, r15, 3
    mul.u32 r19, r19, 0x1111
    add.u32 r19, r19, 0x3210
    prmt r20, r20, r21, r19          # base, low word
    prmt r21, r21, r22, r19          # base, high word (k = 8)
    # the mask bits from value i up
    shr.u32 r18, r14, 3
    cvt.u64.u32 r6, r18
    add.u64 r6, r6, r8
    ld.global.u8 r18, [r6]
    and.u32 r19, r14, 7
    shr.u32 r18, r18, r19
    # the delta sign-extended from d bytes: shift by 32 - 8d
    mov.u32 r22, 8
    shl.u32 r22, r22, r13
    neg.s32 r22, r22
    add.u32 r22, r22, 32
    shl.u32 r24, r17, r22
    shr.s32 r24, r24, r22
    and.u32 r19, r18, 1              # value i is base + delta
    set.eq.u32 r3, r12, 3
    brc r3, K8, STORE
    set.eq.u32 r3, r12, 2
    brc r3, K4, STORE
    # --- k = 2 (B2-D1): values 2*lane and 2*lane+1, deltas bytes 0 and 1 of r17
    prmt r17, r17, r17, 0x9180       # both deltas, each sign-extended to 16 bits
    sel.u32 r22, r20, rz, r19
    add.u32 r22, r22, r17
    and.u32 r11, r22, 0xffff
    shr.u32 r19, r18, 1
    and.u32 r19, r19, 1
    sel.u32 r22, r20, rz, r19
    shr.u32 r17, r17, 16
    add.u32 r22, r22, r17
    shl.u32 r22, r22, 16
    or.u32 r11, r11, r22
    bra STORE
    # --- k = 4 (B4-D1, B4-D2): one value
K4:
    sel.u32 r20, r20, rz, r19
    add.u32 r11, r24, r20
    bra STORE
    # --- k = 8 (B8-D1, B8-D2, B8-D4): half lane%2 of a 64-bit sum
K8:
    shr.s32 r25, r24, 31
    sel.u32 r20, r20, rz, r19
    sel.u32 r21, r21, rz, r19
    add.u64 r20, r20, r24
    and.u32 r19, r0, 1
    sel.u32 r11, r21, r20, r19
    bra STORE
RAW:
    cvt.u64.u32 r6, r2
    add.u64 r6, r6, r8
    ld.global.u32 r11, [r6]
    bra STORE
REPEAT:
    and.u32 r3, r0, 1
    shl.u32 r3, r3, 2
    cvt.u64.u32 r6, r3
    add.u64 r6, r6, r8
    ld.global.u32 r11, [r6]          # word lane%2 of the 8-byte value
    bra STORE
BAD:
    trap
STORE:
    st.global.u32 [r4], r11
DONE:
    exit
