module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    affine.for %arg4 = 0 to 256 {
      affine.for %arg5 = 0 to 256 {
        affine.store %cst, %alloc[%arg4, %arg5] : memref<256x256xf32>
      }
    }
    affine.for %arg4 = 0 to 256 {
      affine.for %arg5 = 0 to 256 {
        affine.for %arg6 = 0 to 256 {
          %0 = affine.load %arg0[%arg4, %arg6] : memref<256x256xf32>
          %1 = affine.load %arg1[%arg6, %arg5] : memref<256x256xf32>
          %2 = affine.load %alloc[%arg4, %arg5] : memref<256x256xf32>
          %3 = arith.mulf %0, %1 : f32
          %4 = arith.addf %2, %3 : f32
          affine.store %4, %alloc[%arg4, %arg5] : memref<256x256xf32>
        }
      }
    }
    affine.for %arg4 = 0 to 256 {
      affine.for %arg5 = 0 to 256 {
        %0 = affine.load %alloc[%arg4, %arg5] : memref<256x256xf32>
        %1 = affine.load %arg2[%arg5] : memref<256xf32>
        %2 = arith.addf %0, %1 : f32
        %3 = arith.maximumf %2, %cst : f32
        affine.store %3, %arg3[%arg4, %arg5] : memref<256x256xf32>
      }
    }
    memref.dealloc %alloc : memref<256x256xf32>
    return
  }
}
