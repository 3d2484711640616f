module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 3.40282347E+38 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %expand_shape = memref.expand_shape %arg0 [[0, 1], [2]] output_shape [1, 256, 256] : memref<256x256xf32> into memref<1x256x256xf32>
    %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2]] output_shape [1, 256, 256] : memref<256x256xf32> into memref<1x256x256xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    affine.for %arg4 = 0 to 1 {
      affine.for %arg5 = 0 to 256 {
        affine.for %arg6 = 0 to 256 {
          affine.store %cst_0, %alloc[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
        }
      }
    }
    affine.for %arg4 = 0 to 1 {
      affine.for %arg5 = 0 to 256 {
        affine.for %arg6 = 0 to 256 {
          affine.for %arg7 = 0 to 256 {
            %0 = affine.load %expand_shape[%arg4, %arg5, %arg7] : memref<1x256x256xf32>
            %1 = affine.load %expand_shape_1[%arg4, %arg7, %arg6] : memref<1x256x256xf32>
            %2 = affine.load %alloc[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
            %3 = arith.mulf %0, %1 : f32
            %4 = arith.addf %2, %3 : f32
            affine.store %4, %alloc[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
          }
        }
      }
    }
    %expand_shape_2 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 256] : memref<256xf32> into memref<1x1x256xf32>
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    affine.for %arg4 = 0 to 1 {
      affine.for %arg5 = 0 to 256 {
        affine.for %arg6 = 0 to 256 {
          %0 = affine.load %alloc[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
          %1 = affine.load %expand_shape_2[%arg4, %c0, %arg6] : memref<1x1x256xf32>
          %2 = arith.addf %0, %1 : f32
          affine.store %2, %alloc_3[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
        }
      }
    }
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    affine.for %arg4 = 0 to 1 {
      affine.for %arg5 = 0 to 256 {
        affine.for %arg6 = 0 to 256 {
          %0 = affine.load %alloc_3[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
          %1 = arith.minimumf %0, %cst : f32
          %2 = arith.maximumf %1, %cst_0 : f32
          affine.store %2, %alloc_4[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
        }
      }
    }
    %collapse_shape = memref.collapse_shape %alloc_4 [[0, 1], [2]] : memref<1x256x256xf32> into memref<256x256xf32>
    memref.copy %collapse_shape, %arg3 : memref<256x256xf32> to memref<256x256xf32>
    memref.dealloc %alloc : memref<1x256x256xf32>
    memref.dealloc %alloc_3 : memref<1x256x256xf32>
    memref.dealloc %alloc_4 : memref<1x256x256xf32>
    return
  }
}
