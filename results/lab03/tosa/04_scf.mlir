module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 3.40282347E+38 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %expand_shape = memref.expand_shape %arg0 [[0, 1], [2]] output_shape [1, 256, 256] : memref<256x256xf32> into memref<1x256x256xf32>
    %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2]] output_shape [1, 256, 256] : memref<256x256xf32> into memref<1x256x256xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    %c0_2 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1_3 = arith.constant 1 : index
    scf.for %arg4 = %c0_2 to %c1 step %c1_3 {
      %c0_16 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %c1_17 = arith.constant 1 : index
      scf.for %arg5 = %c0_16 to %c256 step %c1_17 {
        %c0_18 = arith.constant 0 : index
        %c256_19 = arith.constant 256 : index
        %c1_20 = arith.constant 1 : index
        scf.for %arg6 = %c0_18 to %c256_19 step %c1_20 {
          memref.store %cst_0, %alloc[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
        }
      }
    }
    %c0_4 = arith.constant 0 : index
    %c1_5 = arith.constant 1 : index
    %c1_6 = arith.constant 1 : index
    scf.for %arg4 = %c0_4 to %c1_5 step %c1_6 {
      %c0_16 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %c1_17 = arith.constant 1 : index
      scf.for %arg5 = %c0_16 to %c256 step %c1_17 {
        %c0_18 = arith.constant 0 : index
        %c256_19 = arith.constant 256 : index
        %c1_20 = arith.constant 1 : index
        scf.for %arg6 = %c0_18 to %c256_19 step %c1_20 {
          %c0_21 = arith.constant 0 : index
          %c256_22 = arith.constant 256 : index
          %c1_23 = arith.constant 1 : index
          scf.for %arg7 = %c0_21 to %c256_22 step %c1_23 {
            %0 = memref.load %expand_shape[%arg4, %arg5, %arg7] : memref<1x256x256xf32>
            %1 = memref.load %expand_shape_1[%arg4, %arg7, %arg6] : memref<1x256x256xf32>
            %2 = memref.load %alloc[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
            %3 = arith.mulf %0, %1 : f32
            %4 = arith.addf %2, %3 : f32
            memref.store %4, %alloc[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
          }
        }
      }
    }
    %expand_shape_7 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 256] : memref<256xf32> into memref<1x1x256xf32>
    %alloc_8 = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    %c0_9 = arith.constant 0 : index
    %c1_10 = arith.constant 1 : index
    %c1_11 = arith.constant 1 : index
    scf.for %arg4 = %c0_9 to %c1_10 step %c1_11 {
      %c0_16 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %c1_17 = arith.constant 1 : index
      scf.for %arg5 = %c0_16 to %c256 step %c1_17 {
        %c0_18 = arith.constant 0 : index
        %c256_19 = arith.constant 256 : index
        %c1_20 = arith.constant 1 : index
        scf.for %arg6 = %c0_18 to %c256_19 step %c1_20 {
          %0 = memref.load %alloc[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
          %1 = memref.load %expand_shape_7[%arg4, %c0, %arg6] : memref<1x1x256xf32>
          %2 = arith.addf %0, %1 : f32
          memref.store %2, %alloc_8[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
        }
      }
    }
    %alloc_12 = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    %c0_13 = arith.constant 0 : index
    %c1_14 = arith.constant 1 : index
    %c1_15 = arith.constant 1 : index
    scf.for %arg4 = %c0_13 to %c1_14 step %c1_15 {
      %c0_16 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %c1_17 = arith.constant 1 : index
      scf.for %arg5 = %c0_16 to %c256 step %c1_17 {
        %c0_18 = arith.constant 0 : index
        %c256_19 = arith.constant 256 : index
        %c1_20 = arith.constant 1 : index
        scf.for %arg6 = %c0_18 to %c256_19 step %c1_20 {
          %0 = memref.load %alloc_8[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
          %1 = arith.minimumf %0, %cst : f32
          %2 = arith.maximumf %1, %cst_0 : f32
          memref.store %2, %alloc_12[%arg4, %arg5, %arg6] : memref<1x256x256xf32>
        }
      }
    }
    %collapse_shape = memref.collapse_shape %alloc_12 [[0, 1], [2]] : memref<1x256x256xf32> into memref<256x256xf32>
    memref.copy %collapse_shape, %arg3 : memref<256x256xf32> to memref<256x256xf32>
    memref.dealloc %alloc : memref<1x256x256xf32>
    memref.dealloc %alloc_8 : memref<1x256x256xf32>
    memref.dealloc %alloc_12 : memref<1x256x256xf32>
    return
  }
}
