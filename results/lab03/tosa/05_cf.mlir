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
    cf.br ^bb1(%c0_2 : index)
  ^bb1(%0: index):  // 2 preds: ^bb0, ^bb8
    %1 = arith.cmpi slt, %0, %c1 : index
    cf.cond_br %1, ^bb2, ^bb9
  ^bb2:  // pred: ^bb1
    %c0_4 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %c1_5 = arith.constant 1 : index
    cf.br ^bb3(%c0_4 : index)
  ^bb3(%2: index):  // 2 preds: ^bb2, ^bb7
    %3 = arith.cmpi slt, %2, %c256 : index
    cf.cond_br %3, ^bb4, ^bb8
  ^bb4:  // pred: ^bb3
    %c0_6 = arith.constant 0 : index
    %c256_7 = arith.constant 256 : index
    %c1_8 = arith.constant 1 : index
    cf.br ^bb5(%c0_6 : index)
  ^bb5(%4: index):  // 2 preds: ^bb4, ^bb6
    %5 = arith.cmpi slt, %4, %c256_7 : index
    cf.cond_br %5, ^bb6, ^bb7
  ^bb6:  // pred: ^bb5
    memref.store %cst_0, %alloc[%0, %2, %4] : memref<1x256x256xf32>
    %6 = arith.addi %4, %c1_8 : index
    cf.br ^bb5(%6 : index)
  ^bb7:  // pred: ^bb5
    %7 = arith.addi %2, %c1_5 : index
    cf.br ^bb3(%7 : index)
  ^bb8:  // pred: ^bb3
    %8 = arith.addi %0, %c1_3 : index
    cf.br ^bb1(%8 : index)
  ^bb9:  // pred: ^bb1
    %c0_9 = arith.constant 0 : index
    %c1_10 = arith.constant 1 : index
    %c1_11 = arith.constant 1 : index
    cf.br ^bb10(%c0_9 : index)
  ^bb10(%9: index):  // 2 preds: ^bb9, ^bb20
    %10 = arith.cmpi slt, %9, %c1_10 : index
    cf.cond_br %10, ^bb11, ^bb21
  ^bb11:  // pred: ^bb10
    %c0_12 = arith.constant 0 : index
    %c256_13 = arith.constant 256 : index
    %c1_14 = arith.constant 1 : index
    cf.br ^bb12(%c0_12 : index)
  ^bb12(%11: index):  // 2 preds: ^bb11, ^bb19
    %12 = arith.cmpi slt, %11, %c256_13 : index
    cf.cond_br %12, ^bb13, ^bb20
  ^bb13:  // pred: ^bb12
    %c0_15 = arith.constant 0 : index
    %c256_16 = arith.constant 256 : index
    %c1_17 = arith.constant 1 : index
    cf.br ^bb14(%c0_15 : index)
  ^bb14(%13: index):  // 2 preds: ^bb13, ^bb18
    %14 = arith.cmpi slt, %13, %c256_16 : index
    cf.cond_br %14, ^bb15, ^bb19
  ^bb15:  // pred: ^bb14
    %c0_18 = arith.constant 0 : index
    %c256_19 = arith.constant 256 : index
    %c1_20 = arith.constant 1 : index
    cf.br ^bb16(%c0_18 : index)
  ^bb16(%15: index):  // 2 preds: ^bb15, ^bb17
    %16 = arith.cmpi slt, %15, %c256_19 : index
    cf.cond_br %16, ^bb17, ^bb18
  ^bb17:  // pred: ^bb16
    %17 = memref.load %expand_shape[%9, %11, %15] : memref<1x256x256xf32>
    %18 = memref.load %expand_shape_1[%9, %15, %13] : memref<1x256x256xf32>
    %19 = memref.load %alloc[%9, %11, %13] : memref<1x256x256xf32>
    %20 = arith.mulf %17, %18 : f32
    %21 = arith.addf %19, %20 : f32
    memref.store %21, %alloc[%9, %11, %13] : memref<1x256x256xf32>
    %22 = arith.addi %15, %c1_20 : index
    cf.br ^bb16(%22 : index)
  ^bb18:  // pred: ^bb16
    %23 = arith.addi %13, %c1_17 : index
    cf.br ^bb14(%23 : index)
  ^bb19:  // pred: ^bb14
    %24 = arith.addi %11, %c1_14 : index
    cf.br ^bb12(%24 : index)
  ^bb20:  // pred: ^bb12
    %25 = arith.addi %9, %c1_11 : index
    cf.br ^bb10(%25 : index)
  ^bb21:  // pred: ^bb10
    %expand_shape_21 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 256] : memref<256xf32> into memref<1x1x256xf32>
    %alloc_22 = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    %c0_23 = arith.constant 0 : index
    %c1_24 = arith.constant 1 : index
    %c1_25 = arith.constant 1 : index
    cf.br ^bb22(%c0_23 : index)
  ^bb22(%26: index):  // 2 preds: ^bb21, ^bb29
    %27 = arith.cmpi slt, %26, %c1_24 : index
    cf.cond_br %27, ^bb23, ^bb30
  ^bb23:  // pred: ^bb22
    %c0_26 = arith.constant 0 : index
    %c256_27 = arith.constant 256 : index
    %c1_28 = arith.constant 1 : index
    cf.br ^bb24(%c0_26 : index)
  ^bb24(%28: index):  // 2 preds: ^bb23, ^bb28
    %29 = arith.cmpi slt, %28, %c256_27 : index
    cf.cond_br %29, ^bb25, ^bb29
  ^bb25:  // pred: ^bb24
    %c0_29 = arith.constant 0 : index
    %c256_30 = arith.constant 256 : index
    %c1_31 = arith.constant 1 : index
    cf.br ^bb26(%c0_29 : index)
  ^bb26(%30: index):  // 2 preds: ^bb25, ^bb27
    %31 = arith.cmpi slt, %30, %c256_30 : index
    cf.cond_br %31, ^bb27, ^bb28
  ^bb27:  // pred: ^bb26
    %32 = memref.load %alloc[%26, %28, %30] : memref<1x256x256xf32>
    %33 = memref.load %expand_shape_21[%26, %c0, %30] : memref<1x1x256xf32>
    %34 = arith.addf %32, %33 : f32
    memref.store %34, %alloc_22[%26, %28, %30] : memref<1x256x256xf32>
    %35 = arith.addi %30, %c1_31 : index
    cf.br ^bb26(%35 : index)
  ^bb28:  // pred: ^bb26
    %36 = arith.addi %28, %c1_28 : index
    cf.br ^bb24(%36 : index)
  ^bb29:  // pred: ^bb24
    %37 = arith.addi %26, %c1_25 : index
    cf.br ^bb22(%37 : index)
  ^bb30:  // pred: ^bb22
    %alloc_32 = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    %c0_33 = arith.constant 0 : index
    %c1_34 = arith.constant 1 : index
    %c1_35 = arith.constant 1 : index
    cf.br ^bb31(%c0_33 : index)
  ^bb31(%38: index):  // 2 preds: ^bb30, ^bb38
    %39 = arith.cmpi slt, %38, %c1_34 : index
    cf.cond_br %39, ^bb32, ^bb39
  ^bb32:  // pred: ^bb31
    %c0_36 = arith.constant 0 : index
    %c256_37 = arith.constant 256 : index
    %c1_38 = arith.constant 1 : index
    cf.br ^bb33(%c0_36 : index)
  ^bb33(%40: index):  // 2 preds: ^bb32, ^bb37
    %41 = arith.cmpi slt, %40, %c256_37 : index
    cf.cond_br %41, ^bb34, ^bb38
  ^bb34:  // pred: ^bb33
    %c0_39 = arith.constant 0 : index
    %c256_40 = arith.constant 256 : index
    %c1_41 = arith.constant 1 : index
    cf.br ^bb35(%c0_39 : index)
  ^bb35(%42: index):  // 2 preds: ^bb34, ^bb36
    %43 = arith.cmpi slt, %42, %c256_40 : index
    cf.cond_br %43, ^bb36, ^bb37
  ^bb36:  // pred: ^bb35
    %44 = memref.load %alloc_22[%38, %40, %42] : memref<1x256x256xf32>
    %45 = arith.minimumf %44, %cst : f32
    %46 = arith.maximumf %45, %cst_0 : f32
    memref.store %46, %alloc_32[%38, %40, %42] : memref<1x256x256xf32>
    %47 = arith.addi %42, %c1_41 : index
    cf.br ^bb35(%47 : index)
  ^bb37:  // pred: ^bb35
    %48 = arith.addi %40, %c1_38 : index
    cf.br ^bb33(%48 : index)
  ^bb38:  // pred: ^bb33
    %49 = arith.addi %38, %c1_35 : index
    cf.br ^bb31(%49 : index)
  ^bb39:  // pred: ^bb31
    %collapse_shape = memref.collapse_shape %alloc_32 [[0, 1], [2]] : memref<1x256x256xf32> into memref<256x256xf32>
    memref.copy %collapse_shape, %arg3 : memref<256x256xf32> to memref<256x256xf32>
    memref.dealloc %alloc : memref<1x256x256xf32>
    memref.dealloc %alloc_22 : memref<1x256x256xf32>
    memref.dealloc %alloc_32 : memref<1x256x256xf32>
    return
  }
}
