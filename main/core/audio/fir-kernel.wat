;; The resamplers' FIR loops in WebAssembly SIMD (f32x4): the same filters, sample for sample, as
;; the JavaScript loops they replace, about five times faster (docs/audio.md, "Where the
;; resamplers run"). Assembled by scripts/build-fir-kernel.ts into fir-kernel-wasm.ts; the
;; TypeScript wrappers (fir-kernel.ts) copy PCM in and out and keep the contracts of the classes.
;;
;; One instance per resampler: each has its own memory and state, and uses one of the three
;; process functions. Memory layout (bytes), fixed; the memory never grows, so views stay valid:
;;   0      taps, f32, up to three branches of 68 (at 0, 272, 544) or one filter of 196
;;   1024   history, f32, a ring written twice (at i and i + period) so the newest window is contiguous
;;   4096   input, s16, up to 8192 values (IN_CAPACITY in fir-kernel.ts)
;;   20480  output, s16 or f32, up to 16384 values
;; Every filter is padded with zero taps to 8k + 4 (196, 52, 68) so $dot runs whole vectors; the
;; padding multiplies ring slots that always hold finite samples (or zeros), so it adds exact zeros.
(module
  (memory (export "memory") 2 2)
  (global $pos (mut i32) (i32.const 0))
  (global $phase (mut i32) (i32.const 0))

  ;; sum of taps[0 .. 8 * blocks + 4) * hist[0 .. same) (byte addresses), two accumulators for ILP
  (func $dot (param $h i32) (param $t i32) (param $blocks i32) (result f32)
    (local $acc0 v128) (local $acc1 v128)
    (loop $block
      (local.set $acc0 (f32x4.add (local.get $acc0)
        (f32x4.mul (v128.load (local.get $h)) (v128.load (local.get $t)))))
      (local.set $acc1 (f32x4.add (local.get $acc1)
        (f32x4.mul (v128.load offset=16 (local.get $h)) (v128.load offset=16 (local.get $t)))))
      (local.set $h (i32.add (local.get $h) (i32.const 32)))
      (local.set $t (i32.add (local.get $t) (i32.const 32)))
      (br_if $block (local.tee $blocks (i32.sub (local.get $blocks) (i32.const 1)))))
    (local.set $acc0 (f32x4.add (local.get $acc0)
      (f32x4.mul (v128.load (local.get $h)) (v128.load (local.get $t)))))
    (local.set $acc0 (f32x4.add (local.get $acc0) (local.get $acc1)))
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $acc0)) (f32x4.extract_lane 1 (local.get $acc0)))
      (f32.add (f32x4.extract_lane 2 (local.get $acc0)) (f32x4.extract_lane 3 (local.get $acc0)))))

  ;; round half up (as Math.round) and clip to s16
  (func $toInt16 (param $x f32) (result i32)
    (local $r i32)
    (local.set $r (i32.trunc_sat_f32_s (f32.floor (f32.add (local.get $x) (f32.const 0.5)))))
    (select (i32.const 32767)
      (select (i32.const -32768) (local.get $r) (i32.lt_s (local.get $r) (i32.const -32768)))
      (i32.gt_s (local.get $r) (i32.const 32767))))

  ;; Forget all history; $pos = 0 and $phase = the given start phase.
  (func (export "reset") (param $startPhase i32)
    (memory.fill (i32.const 1024) (i32.const 0) (i32.const 3072))
    (global.set $pos (i32.const 0))
    (global.set $phase (local.get $startPhase)))

  ;; 48 kHz -> 16 kHz: each of `count` s16 inputs at 4096 enters a 193-sample ring (period 193,
  ;; oldest at $pos); every third sample the 193-tap filter (padded to 196) runs over the ring and one
  ;; s16 goes out at 20480. Returns the number of outputs.
  (func (export "decimate3") (param $count i32) (result i32)
    (local $in i32) (local $end i32) (local $out i32) (local $pos i32) (local $phase i32) (local $x f32)
    (local.set $pos (global.get $pos))
    (local.set $phase (global.get $phase))
    (local.set $in (i32.const 4096))
    (local.set $end (i32.add (i32.const 4096) (i32.shl (local.get $count) (i32.const 1))))
    (local.set $out (i32.const 20480))
    (block $done
      (loop $sample
        (br_if $done (i32.ge_u (local.get $in) (local.get $end)))
        (local.set $x (f32.convert_i32_s (i32.load16_s (local.get $in))))
        (local.set $in (i32.add (local.get $in) (i32.const 2)))
        (f32.store offset=1024 (i32.shl (local.get $pos) (i32.const 2)) (local.get $x))
        (f32.store offset=1796 (i32.shl (local.get $pos) (i32.const 2)) (local.get $x)) ;; 1024 + 4 * 193
        (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
        (if (i32.eq (local.get $pos) (i32.const 193)) (then (local.set $pos (i32.const 0))))
        (local.set $phase (i32.add (local.get $phase) (i32.const 1)))
        (if (i32.eq (local.get $phase) (i32.const 3)) (then
          (local.set $phase (i32.const 0))
          (i32.store16 (local.get $out) (call $toInt16 (call $dot
            (i32.add (i32.const 1024) (i32.shl (local.get $pos) (i32.const 2))) (i32.const 0) (i32.const 24))))
          (local.set $out (i32.add (local.get $out) (i32.const 2)))))
        (br $sample)))
    (global.set $pos (local.get $pos))
    (global.set $phase (local.get $phase))
    (i32.shr_u (i32.sub (local.get $out) (i32.const 20480)) (i32.const 1)))

  ;; 24 kHz -> 48 kHz, float out: each of `count` s16 inputs at 4096 (zeros if $silent) enters a
  ;; 50-sample ring (period 50, oldest at $pos) and yields two f32 outputs at 20480: the even branch
  ;; (taps at 0) and the odd branch (taps at 272), each padded to 52.
  (func (export "interpolate2") (param $count i32) (param $silent i32)
    (local $in i32) (local $end i32) (local $out i32) (local $pos i32) (local $x f32) (local $h i32)
    (local.set $pos (global.get $pos))
    (local.set $in (i32.const 4096))
    (local.set $end (i32.add (i32.const 4096) (i32.shl (local.get $count) (i32.const 1))))
    (local.set $out (i32.const 20480))
    (block $done
      (loop $sample
        (br_if $done (i32.ge_u (local.get $in) (local.get $end)))
        (local.set $x (select (f32.const 0) (f32.convert_i32_s (i32.load16_s (local.get $in))) (local.get $silent)))
        (local.set $in (i32.add (local.get $in) (i32.const 2)))
        (f32.store offset=1024 (i32.shl (local.get $pos) (i32.const 2)) (local.get $x))
        (f32.store offset=1224 (i32.shl (local.get $pos) (i32.const 2)) (local.get $x)) ;; 1024 + 4 * 50
        (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
        (if (i32.eq (local.get $pos) (i32.const 50)) (then (local.set $pos (i32.const 0))))
        (local.set $h (i32.add (i32.const 1024) (i32.shl (local.get $pos) (i32.const 2))))
        (f32.store (local.get $out) (call $dot (local.get $h) (i32.const 0) (i32.const 6)))
        (f32.store offset=4 (local.get $out) (call $dot (local.get $h) (i32.const 272) (i32.const 6)))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (br $sample)))
    (global.set $pos (local.get $pos)))

  ;; 16 kHz -> 24 kHz: each of `count` s16 inputs at 4096 enters a 65-sample ring (period 65, newest
  ;; at $pos, so $pos moves down); an even input ($phase 0) yields branches 0 and 2, an odd one branch
  ;; 1 (taps at 0, 272, 544, each padded to 68), as s16 at 20480. Returns the number of outputs.
  (func (export "resample3to2") (param $count i32) (result i32)
    (local $in i32) (local $end i32) (local $out i32) (local $pos i32) (local $odd i32) (local $x f32) (local $h i32)
    (local.set $pos (global.get $pos))
    (local.set $odd (global.get $phase))
    (local.set $in (i32.const 4096))
    (local.set $end (i32.add (i32.const 4096) (i32.shl (local.get $count) (i32.const 1))))
    (local.set $out (i32.const 20480))
    (block $done
      (loop $sample
        (br_if $done (i32.ge_u (local.get $in) (local.get $end)))
        (local.set $x (f32.convert_i32_s (i32.load16_s (local.get $in))))
        (local.set $in (i32.add (local.get $in) (i32.const 2)))
        (local.set $pos (select (i32.const 64) (i32.sub (local.get $pos) (i32.const 1)) (i32.eqz (local.get $pos))))
        (f32.store offset=1024 (i32.shl (local.get $pos) (i32.const 2)) (local.get $x))
        (f32.store offset=1284 (i32.shl (local.get $pos) (i32.const 2)) (local.get $x)) ;; 1024 + 4 * 65
        (local.set $h (i32.add (i32.const 1024) (i32.shl (local.get $pos) (i32.const 2))))
        (if (local.get $odd)
          (then
            (i32.store16 (local.get $out) (call $toInt16 (call $dot (local.get $h) (i32.const 272) (i32.const 8))))
            (local.set $out (i32.add (local.get $out) (i32.const 2))))
          (else
            (i32.store16 (local.get $out) (call $toInt16 (call $dot (local.get $h) (i32.const 0) (i32.const 8))))
            (i32.store16 offset=2 (local.get $out) (call $toInt16 (call $dot (local.get $h) (i32.const 544) (i32.const 8))))
            (local.set $out (i32.add (local.get $out) (i32.const 4)))))
        (local.set $odd (i32.xor (local.get $odd) (i32.const 1)))
        (br $sample)))
    (global.set $pos (local.get $pos))
    (global.set $phase (local.get $odd))
    (i32.shr_u (i32.sub (local.get $out) (i32.const 20480)) (i32.const 1)))
)
