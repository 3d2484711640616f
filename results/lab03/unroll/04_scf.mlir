module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %c1 = arith.constant 1 : index
    scf.for %arg4 = %c0 to %c256 step %c1 {
      %c0_6 = arith.constant 0 : index
      %c256_7 = arith.constant 256 : index
      %c4 = arith.constant 4 : index
      scf.for %arg5 = %c0_6 to %c256_7 step %c4 {
        memref.store %cst, %alloc[%arg4, %arg5] : memref<256x256xf32>
        %c1_8 = arith.constant 1 : index
        %0 = arith.addi %arg5, %c1_8 : index
        memref.store %cst, %alloc[%arg4, %0] : memref<256x256xf32>
        %c2 = arith.constant 2 : index
        %1 = arith.addi %arg5, %c2 : index
        memref.store %cst, %alloc[%arg4, %1] : memref<256x256xf32>
        %c3 = arith.constant 3 : index
        %2 = arith.addi %arg5, %c3 : index
        memref.store %cst, %alloc[%arg4, %2] : memref<256x256xf32>
      }
    }
    %c0_0 = arith.constant 0 : index
    %c256_1 = arith.constant 256 : index
    %c1_2 = arith.constant 1 : index
    scf.for %arg4 = %c0_0 to %c256_1 step %c1_2 {
      %c0_6 = arith.constant 0 : index
      %c256_7 = arith.constant 256 : index
      %c1_8 = arith.constant 1 : index
      scf.for %arg5 = %c0_6 to %c256_7 step %c1_8 {
        %c0_9 = arith.constant 0 : index
        %c256_10 = arith.constant 256 : index
        %c4 = arith.constant 4 : index
        scf.for %arg6 = %c0_9 to %c256_10 step %c4 {
          %0 = memref.load %arg0[%arg4, %arg6] : memref<256x256xf32>
          %1 = memref.load %arg1[%arg6, %arg5] : memref<256x256xf32>
          %2 = memref.load %alloc[%arg4, %arg5] : memref<256x256xf32>
          %3 = arith.mulf %0, %1 : f32
          %4 = arith.addf %2, %3 : f32
          memref.store %4, %alloc[%arg4, %arg5] : memref<256x256xf32>
          %c1_11 = arith.constant 1 : index
          %5 = arith.addi %arg6, %c1_11 : index
          %6 = memref.load %arg0[%arg4, %5] : memref<256x256xf32>
          %7 = memref.load %arg1[%5, %arg5] : memref<256x256xf32>
          %8 = memref.load %alloc[%arg4, %arg5] : memref<256x256xf32>
          %9 = arith.mulf %6, %7 : f32
          %10 = arith.addf %8, %9 : f32
          memref.store %10, %alloc[%arg4, %arg5] : memref<256x256xf32>
          %c2 = arith.constant 2 : index
          %11 = arith.addi %arg6, %c2 : index
          %12 = memref.load %arg0[%arg4, %11] : memref<256x256xf32>
          %13 = memref.load %arg1[%11, %arg5] : memref<256x256xf32>
          %14 = memref.load %alloc[%arg4, %arg5] : memref<256x256xf32>
          %15 = arith.mulf %12, %13 : f32
          %16 = arith.addf %14, %15 : f32
          memref.store %16, %alloc[%arg4, %arg5] : memref<256x256xf32>
          %c3 = arith.constant 3 : index
          %17 = arith.addi %arg6, %c3 : index
          %18 = memref.load %arg0[%arg4, %17] : memref<256x256xf32>
          %19 = memref.load %arg1[%17, %arg5] : memref<256x256xf32>
          %20 = memref.load %alloc[%arg4, %arg5] : memref<256x256xf32>
          %21 = arith.mulf %18, %19 : f32
          %22 = arith.addf %20, %21 : f32
          memref.store %22, %alloc[%arg4, %arg5] : memref<256x256xf32>
        }
      }
    }
    %c0_3 = arith.constant 0 : index
    %c256_4 = arith.constant 256 : index
    %c1_5 = arith.constant 1 : index
    scf.for %arg4 = %c0_3 to %c256_4 step %c1_5 {
      %c0_6 = arith.constant 0 : index
      %c256_7 = arith.constant 256 : index
      %c4 = arith.constant 4 : index
      scf.for %arg5 = %c0_6 to %c256_7 step %c4 {
        %0 = memref.load %alloc[%arg4, %arg5] : memref<256x256xf32>
        %1 = memref.load %arg2[%arg5] : memref<256xf32>
        %2 = arith.addf %0, %1 : f32
        %3 = arith.maximumf %2, %cst : f32
        memref.store %3, %arg3[%arg4, %arg5] : memref<256x256xf32>
        %c1_8 = arith.constant 1 : index
        %4 = arith.addi %arg5, %c1_8 : index
        %5 = memref.load %alloc[%arg4, %4] : memref<256x256xf32>
        %6 = memref.load %arg2[%4] : memref<256xf32>
        %7 = arith.addf %5, %6 : f32
        %8 = arith.maximumf %7, %cst : f32
        memref.store %8, %arg3[%arg4, %4] : memref<256x256xf32>
        %c2 = arith.constant 2 : index
        %9 = arith.addi %arg5, %c2 : index
        %10 = memref.load %alloc[%arg4, %9] : memref<256x256xf32>
        %11 = memref.load %arg2[%9] : memref<256xf32>
        %12 = arith.addf %10, %11 : f32
        %13 = arith.maximumf %12, %cst : f32
        memref.store %13, %arg3[%arg4, %9] : memref<256x256xf32>
        %c3 = arith.constant 3 : index
        %14 = arith.addi %arg5, %c3 : index
        %15 = memref.load %alloc[%arg4, %14] : memref<256x256xf32>
        %16 = memref.load %arg2[%14] : memref<256xf32>
        %17 = arith.addf %15, %16 : f32
        %18 = arith.maximumf %17, %cst : f32
        memref.store %18, %arg3[%arg4, %14] : memref<256x256xf32>
      }
    }
    memref.dealloc %alloc : memref<256x256xf32>
    return
  }
}
