#map = affine_map<(d0) -> (d0 * 64)>
#map1 = affine_map<(d0)[s0] -> (d0 * 64 + s0)>
module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %0 = ub.poison : f32
    %cst = arith.constant dense<0.000000e+00> : vector<4x16xf32>
    %cst_0 = arith.constant dense<0.000000e+00> : vector<6x16xf32>
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c252 = arith.constant 252 : index
    %c16 = arith.constant 16 : index
    %c6 = arith.constant 6 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    scf.for %arg4 = %c0 to %c252 step %c6 {
      scf.for %arg5 = %c0 to %c256 step %c16 {
        vector.transfer_write %cst_0, %alloc_1[%arg4, %arg5] {in_bounds = [true, true]} : vector<6x16xf32>, memref<256x256xf32>
      }
    }
    scf.for %arg4 = %c0 to %c256 step %c16 {
      vector.transfer_write %cst, %alloc_1[%c252, %arg4] {in_bounds = [true, true]} : vector<4x16xf32>, memref<256x256xf32>
    }
    scf.forall (%arg4) in (4) {
      %1 = affine.apply #map(%arg4)
      %subview = memref.subview %alloc_1[0, %1] [256, 64] [1, 1] : memref<256x256xf32> to memref<256x64xf32, strided<[256, 1], offset: ?>>
      scf.for %arg5 = %c0 to %c252 step %c6 {
        scf.for %arg6 = %c0 to %c64 step %c16 {
          %2 = vector.transfer_read %subview[%arg5, %arg6], %0 {in_bounds = [true, true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<6x16xf32>
          %3 = scf.for %arg7 = %c0 to %c256 step %c1 iter_args(%arg8 = %2) -> (vector<6x16xf32>) {
            %4 = vector.transfer_read %arg0[%arg5, %arg7], %0 {in_bounds = [true, true]} : memref<256x256xf32>, vector<6x1xf32>
            %5 = affine.apply #map1(%arg4)[%arg6]
            %6 = vector.transfer_read %arg1[%arg7, %5], %0 {in_bounds = [true, true]} : memref<256x256xf32>, vector<1x16xf32>
            %7 = vector.extract %6[0] : vector<16xf32> from vector<1x16xf32>
            %8 = vector.extract %4[0, 0] : f32 from vector<6x1xf32>
            %9 = vector.broadcast %8 : f32 to vector<16xf32>
            %10 = vector.extract %arg8[0] : vector<16xf32> from vector<6x16xf32>
            %11 = vector.fma %9, %7, %10 : vector<16xf32>
            %12 = vector.extract %4[1, 0] : f32 from vector<6x1xf32>
            %13 = vector.broadcast %12 : f32 to vector<16xf32>
            %14 = vector.extract %arg8[1] : vector<16xf32> from vector<6x16xf32>
            %15 = vector.fma %13, %7, %14 : vector<16xf32>
            %16 = vector.extract %4[2, 0] : f32 from vector<6x1xf32>
            %17 = vector.broadcast %16 : f32 to vector<16xf32>
            %18 = vector.extract %arg8[2] : vector<16xf32> from vector<6x16xf32>
            %19 = vector.fma %17, %7, %18 : vector<16xf32>
            %20 = vector.extract %4[3, 0] : f32 from vector<6x1xf32>
            %21 = vector.broadcast %20 : f32 to vector<16xf32>
            %22 = vector.extract %arg8[3] : vector<16xf32> from vector<6x16xf32>
            %23 = vector.fma %21, %7, %22 : vector<16xf32>
            %24 = vector.extract %4[4, 0] : f32 from vector<6x1xf32>
            %25 = vector.broadcast %24 : f32 to vector<16xf32>
            %26 = vector.extract %arg8[4] : vector<16xf32> from vector<6x16xf32>
            %27 = vector.fma %25, %7, %26 : vector<16xf32>
            %28 = vector.extract %4[5, 0] : f32 from vector<6x1xf32>
            %29 = vector.broadcast %28 : f32 to vector<16xf32>
            %30 = vector.extract %arg8[5] : vector<16xf32> from vector<6x16xf32>
            %31 = vector.fma %29, %7, %30 : vector<16xf32>
            %32:16 = vector.to_elements %11 : vector<16xf32>
            %33:16 = vector.to_elements %15 : vector<16xf32>
            %34:16 = vector.to_elements %19 : vector<16xf32>
            %35:16 = vector.to_elements %23 : vector<16xf32>
            %36:16 = vector.to_elements %27 : vector<16xf32>
            %37:16 = vector.to_elements %31 : vector<16xf32>
            %38 = vector.from_elements %32#0, %32#1, %32#2, %32#3, %32#4, %32#5, %32#6, %32#7, %32#8, %32#9, %32#10, %32#11, %32#12, %32#13, %32#14, %32#15, %33#0, %33#1, %33#2, %33#3, %33#4, %33#5, %33#6, %33#7, %33#8, %33#9, %33#10, %33#11, %33#12, %33#13, %33#14, %33#15, %34#0, %34#1, %34#2, %34#3, %34#4, %34#5, %34#6, %34#7, %34#8, %34#9, %34#10, %34#11, %34#12, %34#13, %34#14, %34#15, %35#0, %35#1, %35#2, %35#3, %35#4, %35#5, %35#6, %35#7, %35#8, %35#9, %35#10, %35#11, %35#12, %35#13, %35#14, %35#15, %36#0, %36#1, %36#2, %36#3, %36#4, %36#5, %36#6, %36#7, %36#8, %36#9, %36#10, %36#11, %36#12, %36#13, %36#14, %36#15, %37#0, %37#1, %37#2, %37#3, %37#4, %37#5, %37#6, %37#7, %37#8, %37#9, %37#10, %37#11, %37#12, %37#13, %37#14, %37#15 : vector<6x16xf32>
            scf.yield %38 : vector<6x16xf32>
          }
          vector.transfer_write %3, %subview[%arg5, %arg6] {in_bounds = [true, true]} : vector<6x16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
        }
      }
      scf.for %arg5 = %c0 to %c64 step %c16 {
        %2 = vector.transfer_read %subview[%c252, %arg5], %0 {in_bounds = [true, true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<4x16xf32>
        %3 = scf.for %arg6 = %c0 to %c256 step %c1 iter_args(%arg7 = %2) -> (vector<4x16xf32>) {
          %4 = vector.transfer_read %arg0[%c252, %arg6], %0 {in_bounds = [true, true]} : memref<256x256xf32>, vector<4x1xf32>
          %5 = affine.apply #map1(%arg4)[%arg5]
          %6 = vector.transfer_read %arg1[%arg6, %5], %0 {in_bounds = [true, true]} : memref<256x256xf32>, vector<1x16xf32>
          %7 = vector.extract %6[0] : vector<16xf32> from vector<1x16xf32>
          %8 = vector.extract %4[0, 0] : f32 from vector<4x1xf32>
          %9 = vector.broadcast %8 : f32 to vector<16xf32>
          %10 = vector.extract %arg7[0] : vector<16xf32> from vector<4x16xf32>
          %11 = vector.fma %9, %7, %10 : vector<16xf32>
          %12 = vector.extract %4[1, 0] : f32 from vector<4x1xf32>
          %13 = vector.broadcast %12 : f32 to vector<16xf32>
          %14 = vector.extract %arg7[1] : vector<16xf32> from vector<4x16xf32>
          %15 = vector.fma %13, %7, %14 : vector<16xf32>
          %16 = vector.extract %4[2, 0] : f32 from vector<4x1xf32>
          %17 = vector.broadcast %16 : f32 to vector<16xf32>
          %18 = vector.extract %arg7[2] : vector<16xf32> from vector<4x16xf32>
          %19 = vector.fma %17, %7, %18 : vector<16xf32>
          %20 = vector.extract %4[3, 0] : f32 from vector<4x1xf32>
          %21 = vector.broadcast %20 : f32 to vector<16xf32>
          %22 = vector.extract %arg7[3] : vector<16xf32> from vector<4x16xf32>
          %23 = vector.fma %21, %7, %22 : vector<16xf32>
          %24:16 = vector.to_elements %11 : vector<16xf32>
          %25:16 = vector.to_elements %15 : vector<16xf32>
          %26:16 = vector.to_elements %19 : vector<16xf32>
          %27:16 = vector.to_elements %23 : vector<16xf32>
          %28 = vector.from_elements %24#0, %24#1, %24#2, %24#3, %24#4, %24#5, %24#6, %24#7, %24#8, %24#9, %24#10, %24#11, %24#12, %24#13, %24#14, %24#15, %25#0, %25#1, %25#2, %25#3, %25#4, %25#5, %25#6, %25#7, %25#8, %25#9, %25#10, %25#11, %25#12, %25#13, %25#14, %25#15, %26#0, %26#1, %26#2, %26#3, %26#4, %26#5, %26#6, %26#7, %26#8, %26#9, %26#10, %26#11, %26#12, %26#13, %26#14, %26#15, %27#0, %27#1, %27#2, %27#3, %27#4, %27#5, %27#6, %27#7, %27#8, %27#9, %27#10, %27#11, %27#12, %27#13, %27#14, %27#15 : vector<4x16xf32>
          scf.yield %28 : vector<4x16xf32>
        }
        vector.transfer_write %3, %subview[%c252, %arg5] {in_bounds = [true, true]} : vector<4x16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
      }
    }
    scf.for %arg4 = %c0 to %c252 step %c6 {
      scf.for %arg5 = %c0 to %c256 step %c16 {
        %1 = vector.transfer_read %alloc_1[%arg4, %arg5], %0 {in_bounds = [true, true]} : memref<256x256xf32>, vector<6x16xf32>
        %2 = vector.transfer_read %arg2[%arg5], %0 {in_bounds = [true]} : memref<256xf32>, vector<16xf32>
        %3 = vector.broadcast %2 : vector<16xf32> to vector<6x16xf32>
        %4 = arith.addf %1, %3 : vector<6x16xf32>
        %5 = arith.maximumf %4, %cst_0 : vector<6x16xf32>
        vector.transfer_write %5, %alloc[%arg4, %arg5] {in_bounds = [true, true]} : vector<6x16xf32>, memref<256x256xf32>
      }
    }
    scf.for %arg4 = %c0 to %c256 step %c16 {
      %1 = vector.transfer_read %alloc_1[%c252, %arg4], %0 {in_bounds = [true, true]} : memref<256x256xf32>, vector<4x16xf32>
      %2 = vector.transfer_read %arg2[%arg4], %0 {in_bounds = [true]} : memref<256xf32>, vector<16xf32>
      %3 = vector.broadcast %2 : vector<16xf32> to vector<4x16xf32>
      %4 = arith.addf %1, %3 : vector<4x16xf32>
      %5 = arith.maximumf %4, %cst : vector<4x16xf32>
      vector.transfer_write %5, %alloc[%c252, %arg4] {in_bounds = [true, true]} : vector<4x16xf32>, memref<256x256xf32>
    }
    memref.copy %alloc, %arg3 : memref<256x256xf32> to memref<256x256xf32>
    memref.dealloc %alloc : memref<256x256xf32>
    memref.dealloc %alloc_1 : memref<256x256xf32>
    return
  }
}
