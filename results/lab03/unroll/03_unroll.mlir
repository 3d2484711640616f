#map = affine_map<(d0) -> (d0 + 1)>
#map1 = affine_map<(d0) -> (d0 + 2)>
#map2 = affine_map<(d0) -> (d0 + 3)>
module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    affine.for %arg4 = 0 to 256 {
      affine.for %arg5 = 0 to 256 step 4 {
        affine.store %cst, %alloc[%arg4, %arg5] : memref<256x256xf32>
        %0 = affine.apply #map(%arg5)
        affine.store %cst, %alloc[%arg4, %0] : memref<256x256xf32>
        %1 = affine.apply #map1(%arg5)
        affine.store %cst, %alloc[%arg4, %1] : memref<256x256xf32>
        %2 = affine.apply #map2(%arg5)
        affine.store %cst, %alloc[%arg4, %2] : memref<256x256xf32>
      }
    }
    affine.for %arg4 = 0 to 256 {
      affine.for %arg5 = 0 to 256 {
        affine.for %arg6 = 0 to 256 step 4 {
          %0 = affine.load %arg0[%arg4, %arg6] : memref<256x256xf32>
          %1 = affine.load %arg1[%arg6, %arg5] : memref<256x256xf32>
          %2 = affine.load %alloc[%arg4, %arg5] : memref<256x256xf32>
          %3 = arith.mulf %0, %1 : f32
          %4 = arith.addf %2, %3 : f32
          affine.store %4, %alloc[%arg4, %arg5] : memref<256x256xf32>
          %5 = affine.apply #map(%arg6)
          %6 = affine.load %arg0[%arg4, %5] : memref<256x256xf32>
          %7 = affine.load %arg1[%5, %arg5] : memref<256x256xf32>
          %8 = affine.load %alloc[%arg4, %arg5] : memref<256x256xf32>
          %9 = arith.mulf %6, %7 : f32
          %10 = arith.addf %8, %9 : f32
          affine.store %10, %alloc[%arg4, %arg5] : memref<256x256xf32>
          %11 = affine.apply #map1(%arg6)
          %12 = affine.load %arg0[%arg4, %11] : memref<256x256xf32>
          %13 = affine.load %arg1[%11, %arg5] : memref<256x256xf32>
          %14 = affine.load %alloc[%arg4, %arg5] : memref<256x256xf32>
          %15 = arith.mulf %12, %13 : f32
          %16 = arith.addf %14, %15 : f32
          affine.store %16, %alloc[%arg4, %arg5] : memref<256x256xf32>
          %17 = affine.apply #map2(%arg6)
          %18 = affine.load %arg0[%arg4, %17] : memref<256x256xf32>
          %19 = affine.load %arg1[%17, %arg5] : memref<256x256xf32>
          %20 = affine.load %alloc[%arg4, %arg5] : memref<256x256xf32>
          %21 = arith.mulf %18, %19 : f32
          %22 = arith.addf %20, %21 : f32
          affine.store %22, %alloc[%arg4, %arg5] : memref<256x256xf32>
        }
      }
    }
    affine.for %arg4 = 0 to 256 {
      affine.for %arg5 = 0 to 256 step 4 {
        %0 = affine.load %alloc[%arg4, %arg5] : memref<256x256xf32>
        %1 = affine.load %arg2[%arg5] : memref<256xf32>
        %2 = arith.addf %0, %1 : f32
        %3 = arith.maximumf %2, %cst : f32
        affine.store %3, %arg3[%arg4, %arg5] : memref<256x256xf32>
        %4 = affine.apply #map(%arg5)
        %5 = affine.load %alloc[%arg4, %4] : memref<256x256xf32>
        %6 = affine.load %arg2[%4] : memref<256xf32>
        %7 = arith.addf %5, %6 : f32
        %8 = arith.maximumf %7, %cst : f32
        affine.store %8, %arg3[%arg4, %4] : memref<256x256xf32>
        %9 = affine.apply #map1(%arg5)
        %10 = affine.load %alloc[%arg4, %9] : memref<256x256xf32>
        %11 = affine.load %arg2[%9] : memref<256xf32>
        %12 = arith.addf %10, %11 : f32
        %13 = arith.maximumf %12, %cst : f32
        affine.store %13, %arg3[%arg4, %9] : memref<256x256xf32>
        %14 = affine.apply #map2(%arg5)
        %15 = affine.load %alloc[%arg4, %14] : memref<256x256xf32>
        %16 = affine.load %arg2[%14] : memref<256xf32>
        %17 = arith.addf %15, %16 : f32
        %18 = arith.maximumf %17, %cst : f32
        affine.store %18, %arg3[%arg4, %14] : memref<256x256xf32>
      }
    }
    memref.dealloc %alloc : memref<256x256xf32>
    return
  }
}
