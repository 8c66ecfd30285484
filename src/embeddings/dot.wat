;; The exact vector scan of indx (src/embeddings/matrix.ts): scores[r] = dot(rows[r], q).
;; Vectors are L2-normalised, so the dot product is the cosine similarity. f32x4 SIMD with four
;; accumulators keeps the scan at memory speed (≈ 8 ms for 20,000 × 768 on 2 cores).
;; Compiled to src/embeddings/dot-wasm.ts by `bun scripts/build-wasm.ts`.
(module
  (memory (export "memory") 1)
  ;; rows: n rows of d floats each (byte offset, 16-aligned); d is a multiple of 16.
  (func (export "scan") (param $rows i32) (param $q i32) (param $scores i32) (param $n i32) (param $d i32)
    (local $r i32) (local $i i32) (local $row i32) (local $bytes i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $bytes (i32.shl (local.get $d) (i32.const 2)))
    (local.set $row (local.get $rows))
    (block $done
      (loop $rowloop
        (br_if $done (i32.ge_u (local.get $r) (local.get $n)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $inner
          (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul
            (v128.load (i32.add (local.get $row) (local.get $i)))
            (v128.load (i32.add (local.get $q) (local.get $i))))))
          (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul
            (v128.load offset=16 (i32.add (local.get $row) (local.get $i)))
            (v128.load offset=16 (i32.add (local.get $q) (local.get $i))))))
          (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul
            (v128.load offset=32 (i32.add (local.get $row) (local.get $i)))
            (v128.load offset=32 (i32.add (local.get $q) (local.get $i))))))
          (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul
            (v128.load offset=48 (i32.add (local.get $row) (local.get $i)))
            (v128.load offset=48 (i32.add (local.get $q) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 64)))
          (br_if $inner (i32.lt_u (local.get $i) (local.get $bytes))))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
        (f32.store
          (i32.add (local.get $scores) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (local.set $row (i32.add (local.get $row) (local.get $bytes)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rowloop))))
)
